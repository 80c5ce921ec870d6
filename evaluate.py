"""evaluate.py: arrives with its issue."""
import sys

if __name__ == "__main__":
    sys.exit("evaluate.py is not yet available")
