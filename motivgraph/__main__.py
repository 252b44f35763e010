from motivgraph.cli import main

main()
