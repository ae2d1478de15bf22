"""``python -m analysis.notebooks [DATA]``: execute every notebook on DATA (default data/published)."""

from . import main

raise SystemExit(main())
