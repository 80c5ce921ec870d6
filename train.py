"""train.py: arrives with its issue."""
import sys

if __name__ == "__main__":
    sys.exit("train.py is not yet available")
