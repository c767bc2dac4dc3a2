from rulekit.cli import main

if __name__ == "__main__":  # not when a worker process (multiprocessing spawn) imports it
    main()
