# tlb-policy: every workflow is a target here; the work is done by the
# scripts in tools/series/ (each has --help). See README.md.

S := tools/series

.PHONY: help setup apply export check kunit test guest-test oracle demo bench cost selftest-check bisect mail litmus

help:
	@echo "make setup    install packages, unpack the 7.1.5 base tree into \$$TLBP_CACHE"
	@echo "make apply    rebuild the work branch from series (KSRC=/your/tree [SIGNOFF=1] for your own tree)"
	@echo "make export   regenerate patches/, series and the in-tree copies from the work branch"
	@echo "make check    apply with git am and quilt, each part on what it needs, compare copies, checkpatch, kernel-doc, sparse, litmus, mail"
	@echo "make litmus   herd7 on every litmus test (Never) and its weakened twins (Sometimes)"
	@echo "make kunit    KUnit on UML on the work branch (TREE=dir for another tree)"
	@echo "make test     setup + check + KUnit on UML + QEMU guests of every arch (what CI runs)"
	@echo "make demo     build the ARCH guest (default arm64) and boot it per tlbi_method; prints a table"
	@echo "make bench    base against series throughput and stress-ng, interleaved (ARCH, RUNS, SECS, STRESS, A, B, ARGS_A, ARGS_B)"
	@echo "make cost     instructions, barriers, TLB invalidations and atomics per operation, base against series (ARCHES, METHODS, TWICE, PATCH; TRACE=1: the tracepoint off and on)"
	@echo "make guest-test   the guest command-line matrix only (ARCHES=\"arm64 riscv x86_64\"; FULL=1: every case in every row)"
	@echo "make oracle  boot guest rows under the oracle, a TLB that forgets nothing (ARCHES, ROWS=\"default kpti\")"
	@echo "make bisect  build what each patch touches on arm64, riscv, x86_64 and UML, then link each (QUICK=1: no links)"
	@echo "make mail    b4 prep + b4 send -o of the series, offline, and git am of the mails (PART=name: one part of the file parts; V=n, default the cover letter's newest \"Changes in vn\"; OUT=dir)"
	@echo "make selftest-check  boot a deliberately broken flush and expect stale reads [BREAKAGE=name]"

setup:
	$(S)/setup

apply:
	$(S)/series/apply

export:
	$(S)/series/export

check:
	$(S)/series/check

litmus:
	$(S)/proofs/herd-build
	$(S)/proofs/litmus-check

kunit:
	$(S)/series/kunit $(TREE)

test:
	$(S)/test

guest-test:
	TLBP_GUEST_FULL=$(if $(filter-out 0,$(FULL)),1,$(or $(TLBP_GUEST_FULL),0)) $(S)/guests/guest-test $(ARCHES)

oracle:
	ARCHES="$(ARCHES)" ROWS="$(ROWS)" $(S)/oracle/oracle

demo:
	$(S)/guests/demo

bench:
	$(S)/cost/bench

cost:
	$(S)/cost/cost

selftest-check:
	$(S)/breakage/selftest-check $(BREAKAGE)

bisect:
	$(S)/series/bisect $(if $(QUICK),--quick)

mail:
	$(if $(V),V=$(V)) $(if $(PART),PART=$(PART)) $(S)/series/mail $(OUT)
