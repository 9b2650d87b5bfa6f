"""The applications built on the library: a game played with a person
(:mod:`~mastermind.apps.play`) and strategies set side by side
(:mod:`~mastermind.apps.comparison`).  Only the command line and the package's face
import them."""
