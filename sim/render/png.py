"""SVG to PNG through cairosvg, an optional dependency (``pip install 'castle-sim[png]'``)."""

from __future__ import annotations

INSTALL_HINT = "PNG output needs cairosvg: pip install 'castle-sim[png]' (or pip install cairosvg)"


class PngUnavailable(RuntimeError):
    """cairosvg (or the cairo library under it) is not installed; the message says how to install it."""


def svg_to_png(svg: str, scale: float = 2.0) -> bytes:
    """The PNG bytes of an SVG picture, ``scale`` times its size (2: sharp on high-density screens)."""
    try:
        import cairosvg
    except (ImportError, OSError) as e:  # OSError: cairosvg is there, the cairo library it loads is not
        detail = "" if isinstance(e, ImportError) else f" ({' '.join(str(e).split())[:120]})"
        raise PngUnavailable(INSTALL_HINT + detail) from None
    return cairosvg.svg2png(bytestring=svg.encode("utf-8"), scale=scale)
