"""The expected case: the strategy with the least total number of guesses, proved.
``optimal`` (:mod:`.solver`: its arguments checked, the search here or as units), what
the in-process run and the units share (:mod:`.search`: ``Optimum``), the choice of a
guess at one set as answers come in (:mod:`.choice`), the optimum as units of work
(:mod:`.units`), proved lower bounds by a bound tree (:mod:`.bracket`), and the kernel
rooms only they use: the branch and bound on the total (``_optimal``), its node state
(``_optimal_node.pxi``), lower bounds (``_optimal_bounds.pxi``), memo keys up to
symmetry (``_optimal_canon.pxi``), scans of a node's guesses (``_optimal_scan.pxi``) and
floors of a part (``_optimal_floors.pxi``), each a file its ``.pyx`` includes.

The public names are ``mastermind.optimal`` and ``mastermind.Optimum`` (the package's
``__init__``); this folder is not called ``optimal``, which would shadow the function.
"""
