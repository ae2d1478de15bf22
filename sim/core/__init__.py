"""The data model: cards, rules, moves, board text, deals, outcomes; the ``State`` API; the reference engine.

Everything here but :mod:`.game` is plain Python and loads no compiled code.
"""
