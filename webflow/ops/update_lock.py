"""The one lock that makes a variable update a single step when several threads run it at once.

TensorFlow lets several Python threads call `Session.run` on one graph (a queue runner next to the training
loop, or a learner's own threads). An update reads the variable, computes, then stores: two threads doing
`assign_add` together would both read the same old value and one increment would vanish. Held from the read
to the store, this lock makes each update whole. The ref and resource assign ops always take it (a learner
counting with `assign_add` from threads should never see a lost update, whatever `use_locking` says);
the fused optimizer updates take it when `use_locking=True`, as TensorFlow's do.
"""

from __future__ import annotations

import threading

VARIABLE_UPDATES = threading.Lock()
