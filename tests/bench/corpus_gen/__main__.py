from tests.bench.corpus_gen import main

raise SystemExit(main())
