"""Players: the registry (:mod:`.registry`, :mod:`.builtin`), the play loop (:mod:`.loop`), the result record
(:mod:`.record`) and the compiled players' Python face (:mod:`.compiled`)."""
