"""The worst case: whether a set can be solved within d guesses, and p(n,k), the fewest
guesses that always suffice.  The exists question ``solution_exists`` (:mod:`.exists`),
the counting bound (:mod:`.counting`), a strategy tree checked on its own
``check_strategy`` (:mod:`.check`), the exact optimum ``worst_case`` (:mod:`.bounds`,
which also gives all their public names), the search as the library drives it
(:mod:`.search`), budgeted rounds for big games (:mod:`.finder`), certificates of a proof
(:mod:`.certify`), a question as units of work (:mod:`.units`), and the kernel rooms only
they use: the branch and bound (``_search``) and the files its ``.pyx`` includes: its
state (``_search_state.pxi``), its scans of one guess (``_search_scan.pxi``), label rows,
colour-multiset counts and the ranking of a node's guesses (``_search_labels.pxi``,
``_search_multisets.pxi``, ``_search_rank.pxi``).

The public names are ``mastermind.worst_case``, ... (the package's ``__init__``); this
folder's ``__init__`` imports nothing.
"""
