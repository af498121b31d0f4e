"""``python -m gradc``: the same as the ``gradc`` console script."""

from gradc.cli.main import main

if __name__ == "__main__":
    main()
