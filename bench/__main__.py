"""`python -m bench PATH... --out DIR` (see bench/README.md)."""
import sys

from .cli import main

sys.exit(main())
