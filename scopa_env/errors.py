"""The one exception type the toolkit raises for bad input."""


class ScopaError(ValueError):
    """Bad input: an unknown card, a card not in hand, an illegal capture, an unknown option.

    The message names the problem. Whatever raised it left the game state unchanged.
    """
