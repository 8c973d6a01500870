from agent_tui.launch import main

raise SystemExit(main())
