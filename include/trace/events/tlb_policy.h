/* SPDX-License-Identifier: GPL-2.0 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM tlb_policy

#if !defined(_TRACE_TLB_POLICY_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_TLB_POLICY_H

#include <linux/cpumask.h>
#include <linux/tlb_policy.h>
#include <linux/tracepoint.h>

TRACE_DEFINE_ENUM(TLB_REACH_LOCAL);
TRACE_DEFINE_ENUM(TLB_REACH_IPI);
TRACE_DEFINE_ENUM(TLB_REACH_BROADCAST);
TRACE_DEFINE_ENUM(TLB_REACH_NONE);

TRACE_DEFINE_ENUM(TLB_WHY_THIS_CPU);
TRACE_DEFINE_ENUM(TLB_WHY_MAX_OPS);
TRACE_DEFINE_ENUM(TLB_WHY_ERRATUM);
TRACE_DEFINE_ENUM(TLB_WHY_ATOMIC);
TRACE_DEFINE_ENUM(TLB_WHY_PINNED);
TRACE_DEFINE_ENUM(TLB_WHY_GLOBAL_ASID);
TRACE_DEFINE_ENUM(TLB_WHY_KERNEL);
TRACE_DEFINE_ENUM(TLB_WHY_BATCH);
TRACE_DEFINE_ENUM(TLB_WHY_YOUNG);
TRACE_DEFINE_ENUM(TLB_WHY_NOSYNC);
TRACE_DEFINE_ENUM(TLB_WHY_CALLER);
TRACE_DEFINE_ENUM(TLB_WHY_FENCE_FAILED);

/*
 * One event per flush decision, on the CPU that decided it: the record
 * that tlb_policy_note() counts. @why has the enum tlb_flush_why bits;
 * a flush with none went the way the method says. @cpus is 1 for a
 * local flush; for an IPI flush, the weight of the mask it is sent to,
 * which may count this CPU (flushed without an interrupt) and, on x86,
 * lazy CPUs that get no IPI; 0 for a broadcast, whose reach the
 * hardware or firmware decides, or for a skipped flush.
 */
TRACE_EVENT(tlb_policy_flush,
	    TP_PROTO(const struct tlb_policy_flush *f),
	    TP_ARGS(f),
	    TP_STRUCT__entry(__field(const void *, mm)
			     __field(unsigned long, start)
			     __field(unsigned long, pages)
			     __field(unsigned long, stride)
			     __field(unsigned long, ops)
			     __field(unsigned int, cpus)
			     __field(unsigned int, why)
			     __field(unsigned char, reach)
			     __field(bool, full)),
	    TP_fast_assign(__entry->mm = f->mm;
			   __entry->start = f->start;
			   __entry->pages = f->pages;
			   __entry->stride = f->stride;
			   __entry->ops = f->ops;
			   __entry->cpus = f->reach == TLB_REACH_LOCAL ? 1 :
					   f->cpus ? cpumask_weight(f->cpus) : 0;
			   __entry->why = f->why;
			   __entry->reach = f->reach;
			   __entry->full = f->full;),
	    TP_printk("mm=%p start=%#lx pages=%lu stride=%lu ops=%lu reach=%s full=%d cpus=%u why=%s",
		      __entry->mm, __entry->start, __entry->pages,
		      __entry->stride, __entry->ops,
		      __print_symbolic(__entry->reach,
				       { TLB_REACH_LOCAL, "local" },
				       { TLB_REACH_IPI, "ipi" },
				       { TLB_REACH_BROADCAST, "broadcast" },
				       { TLB_REACH_NONE, "none" }),
		      __entry->full, __entry->cpus,
		      __print_flags(__entry->why, "|",
				    { TLB_WHY_THIS_CPU, "this_cpu" },
				    { TLB_WHY_MAX_OPS, "max_ops" },
				    { TLB_WHY_ERRATUM, "erratum" },
				    { TLB_WHY_ATOMIC, "atomic" },
				    { TLB_WHY_PINNED, "pinned" },
				    { TLB_WHY_GLOBAL_ASID, "global_asid" },
				    { TLB_WHY_KERNEL, "kernel" },
				    { TLB_WHY_BATCH, "batch" },
				    { TLB_WHY_YOUNG, "young" },
				    { TLB_WHY_NOSYNC, "nosync" },
				    { TLB_WHY_CALLER, "caller" },
				    { TLB_WHY_FENCE_FAILED, "fence_failed" }))
);

#endif /* _TRACE_TLB_POLICY_H */

/* This part must be outside protection */
#include <trace/define_trace.h>
