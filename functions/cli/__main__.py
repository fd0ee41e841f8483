from functions.cli import main

main()
