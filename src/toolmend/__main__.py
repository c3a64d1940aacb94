"""`python -m toolmend`: the command line (see `toolmend.cli`)."""

from toolmend.cli import main

raise SystemExit(main())
