"""One-step strategies played against every secret: the valuations and the choice rule
(:mod:`.strategies`), the exhaustive analysis and the one-secret game
(:mod:`.exhaustive`: ``analyze``, ``solve``, ``first_guess_table``), the strategy walk
(:mod:`.walk`), an analysis as units of work (:mod:`.units`, what they do on a worker in
:mod:`.unit_work`), and the kernel rooms only they use: the choice rule's scan
(``_scan``) and the walk (``_walk``).

The public names are ``mastermind.analyze``, ``mastermind.solve``, ... (the package's
``__init__``); this folder's ``__init__`` imports nothing, so a worker that loads one
module of the family loads only what that module needs.
"""
