from rulekit.cli import main

main()
