"""python -m cujit compile FILE.py ... | python -m cujit info (see cujit._cli)."""
import sys

from cujit._cli import main

sys.exit(main())
