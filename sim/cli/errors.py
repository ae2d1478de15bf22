"""The one error type a command raises for bad input it finds itself."""


class UserError(ValueError):
    """Bad input: the message is shown as one line and the command exits with status 2."""
