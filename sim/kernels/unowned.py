"""Arrays handed to compiled code without their reference counts, where counting them is most of the cost.

numba counts a reference taken and dropped, an atomic operation each way, on
every array a function reads from a tuple or slices: in a loop that reads a
workspace of a dozen arrays at every move, that is more work than the move.
An array without its count (no meminfo) costs nothing to take or drop; it is
safe while something else holds the array itself: an argument of the
function, or of its caller, outlives every use inside.
"""

from __future__ import annotations

from numba import types
from numba.core import cgutils
from numba.core.errors import TypingError
from numba.extending import intrinsic


def _stripped(context, builder, ty, value):
    src = context.make_array(ty)(context, builder, value)
    out = context.make_array(ty)(context, builder)
    for field in ("nitems", "itemsize", "data", "shape", "strides"):
        setattr(out, field, getattr(src, field))
    out.meminfo = cgutils.get_null_value(out.meminfo.type)
    out.parent = cgutils.get_null_value(out.parent.type)
    return out._getvalue()


@intrinsic
def unowned(typingctx, value):
    """``value`` (an array, or a tuple or named tuple of arrays and numbers) with the same arrays, uncounted."""
    if isinstance(value, types.Array):
        def codegen(context, builder, sig, args):
            return _stripped(context, builder, sig.args[0], args[0])
        return value(value), codegen
    if not isinstance(value, types.BaseTuple) or not all(isinstance(t, (types.Array, types.Number)) for t in value.types):
        raise TypingError(f"unowned() takes an array or a tuple of arrays and numbers, not {value}")

    def codegen(context, builder, sig, args):
        out = args[0]
        for i, t in enumerate(sig.args[0].types):
            if isinstance(t, types.Array):
                out = builder.insert_value(out, _stripped(context, builder, t, builder.extract_value(args[0], i)), i)
        return out

    return value(value), codegen
