"""Self-play training (train.py): config, algorithms, checkpoints."""
