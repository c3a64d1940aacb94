from toolmend.cli import main

raise SystemExit(main())
