"""Arrays handed to compiled code without their reference counts, where counting them is most of the cost.

numba counts a reference taken and dropped, an atomic operation each way, on
every array a function reads from a tuple or slices: in a loop that reads a
workspace of a dozen arrays at every move, that is more work than the move.
An array without its count (no meminfo) costs nothing to take or drop; it is
safe while something else holds the array itself: an argument of the
function, or of its caller, outlives every use inside.

That still leaves a call (to test the missing count) at each take and drop.
:func:`uncounted` goes further for the view a plug-in's decision reads at
every step: its arrays are of the type :class:`Uncounted`, whose data model
has no count at all, so numba emits nothing (each kernel it is passed to is
compiled once more for that type, and cached).
"""

from __future__ import annotations

from numba import types
from numba.core import cgutils
from numba.core.datamodel import models, register_default
from numba.core.errors import TypingError
from numba.extending import intrinsic


class Uncounted(types.Array):
    """An array type numba keeps no reference count of (its slices and views are plain arrays)."""

    def __init__(self, dtype, ndim, layout, readonly=False, aligned=True):
        super().__init__(dtype, ndim, layout, readonly=readonly, aligned=aligned, name=f"uncounted({dtype}, {ndim}d, {layout})")


@register_default(Uncounted)
class _UncountedModel(models.ArrayModel):
    def has_nrt_meminfo(self):
        return False


def uncounted_type(ty):
    """``ty`` (an array type, or a named tuple of them) with its arrays :class:`Uncounted`."""
    if isinstance(ty, types.Array):
        return Uncounted(ty.dtype, ty.ndim, ty.layout, readonly=not ty.mutable, aligned=ty.aligned)
    if isinstance(ty, types.BaseNamedTuple) and all(isinstance(t, types.Array) for t in ty.types):
        return types.NamedTuple([uncounted_type(t) for t in ty.types], ty.instance_class)
    raise TypeError(f"uncounted: an array or a named tuple of arrays, not {ty}")


def _stripped(context, builder, ty, value):
    src = context.make_array(ty)(context, builder, value)
    out = context.make_array(ty)(context, builder)
    for field in ("nitems", "itemsize", "data", "shape", "strides"):
        setattr(out, field, getattr(src, field))
    out.meminfo = cgutils.get_null_value(out.meminfo.type)
    out.parent = cgutils.get_null_value(out.parent.type)
    return out._getvalue()


def _members_stripped(context, builder, ty, value, out):
    """``out`` (a tuple of ``ty``'s shape) with each array of the tuple ``value`` put in, stripped of its count."""
    for i, t in enumerate(ty.types):
        if isinstance(t, types.Array):
            out = builder.insert_value(out, _stripped(context, builder, t, builder.extract_value(value, i)), i)
    return out


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
        return _members_stripped(context, builder, sig.args[0], args[0], args[0])

    return value(value), codegen


@intrinsic
def uncounted(typingctx, value):
    """``value`` (an array or a named tuple of arrays) as :class:`Uncounted` arrays: the same memory, no count."""
    try:
        out = uncounted_type(value)
    except TypeError as e:
        raise TypingError(str(e)) from None

    def codegen(context, builder, sig, args):
        if isinstance(sig.args[0], types.Array):
            return _stripped(context, builder, sig.args[0], args[0])
        return _members_stripped(context, builder, sig.args[0], args[0], context.get_constant_undef(sig.return_type))

    return out(value), codegen
