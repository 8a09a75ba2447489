// SPDX-License-Identifier: GPL-2.0
/*
 * The guest side of tools/series/cost/cost: fixed numbers of memory-management
 * operations, each bracketed by the marker instructions that
 * tools/series/cost/cost-plugin.c counts between (NOPs on hardware).
 *
 * Every workload runs in a fresh process, forked while this one is pinned
 * to CPU 0, so that its mm has only ever run on CPU 0 unless the workload
 * itself starts threads or processes elsewhere. Before each "report"
 * marker it prints "tlbp-cost: NAME OPS", in the order of the plugin's
 * phases. Run by the guest's /init when the kernel command line has
 * tlbp_cost=1.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif

#if defined(__aarch64__)
#define MARK(n)	asm volatile("hint #" #n ::: "memory")
#elif defined(__riscv)
#define MARK(n)	asm volatile("addi x0, x0, " #n ::: "memory")
#elif defined(__x86_64__)
#define MARK(n)	asm volatile("nopl 0x7e5c05" #n "(%%rax)" ::: "memory")
#else
#error "tlbp-cost: no marker for this architecture"
#endif
/* x86 pastes the number into a displacement: keep them two hex digits. */
#if defined(__x86_64__)
#define ON()		MARK(70)
#define OFF()		MARK(71)
#define REPORT()	MARK(72)
#else
#define ON()		MARK(0x70)
#define OFF()		MARK(0x71)
#define REPORT()	MARK(0x72)
#endif

#define PAGE		4096UL
#define WARM		4	/* uncounted iterations first */

static int ncpus;

static void die(const char *what)
{
	printf("tlbp-cost: FAIL %s: %s\n", what, strerror(errno));
	fflush(stdout);
	_exit(1);
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("sched_setaffinity");
}

static char *map(unsigned long pages)
{
	char *p = mmap(NULL, pages * PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		die("mmap");
	madvise(p, pages * PAGE, MADV_NOHUGEPAGE);
	return p;
}

static void touch(char *p, unsigned long pages)
{
	unsigned long i;

	for (i = 0; i < pages; i++)
		((volatile char *)p)[i * PAGE] = (char)i;
}

static void report(const char *name, int ops)
{
	printf("tlbp-cost: %s %d\n", name, ops);
	fflush(stdout);
	REPORT();
}

/* MADV_DONTNEED of @pages touched pages, @iters times. */
static void dontneed(const char *name, unsigned long pages, int iters)
{
	char *p = map(pages);
	int i;

	for (i = 0; i < WARM + iters; i++) {
		touch(p, pages);
		if (i >= WARM)
			ON();
		madvise(p, pages * PAGE, MADV_DONTNEED);
		if (i >= WARM)
			OFF();
	}
	report(name, iters);
}

static void wl_dontneed1(void)
{
	dontneed("dontneed-1", 1, 200);
}

static void wl_dontneed64(void)
{
	dontneed("dontneed-64", 64, 100);
}

/*
 * mprotect() of the 64 pages at @p to read-only and back, @iters times
 * after WARM, with a write to every page after each return to read-write
 * if @write, inside the counted window.
 */
static void mprotect64(const char *name, char *p, int write)
{
	int i, iters = 100;

	touch(p, 64);
	for (i = 0; i < WARM + iters; i++) {
		if (i >= WARM)
			ON();
		if (mprotect(p, 64 * PAGE, PROT_READ) ||
		    mprotect(p, 64 * PAGE, PROT_READ | PROT_WRITE))
			die("mprotect");
		if (write)
			touch(p, 64);
		if (i >= WARM)
			OFF();
	}
	report(name, iters);
}

static void wl_mprotect64(void)
{
	mprotect64("mprotect-64x2", map(64), 0);
}

/*
 * The same with the writes: whatever they make the kernel do (a fault,
 * and its flush, on a PTE that mprotect() left read-only or clean) lands
 * in the window; the 64 stores themselves are the same user instructions
 * on every kernel. The buffer starts one page past a 64 KiB boundary,
 * where arm64 with LPA2 issues the most single-page TLBIs before its
 * range TLBIs can start (15 pages to the next boundary), so that the
 * count does not depend on where mmap() happened to put it.
 */
static void wl_mprotect64_write(void)
{
	char *m = map(64 + 16);

	mprotect64("mprotect-64x2-w",
		   m + ((0x10000 - ((unsigned long)m & 0xffff) + PAGE) & 0xffff),
		   1);
}

/* A thread on every other CPU that uses the mm, then sleeps. */
struct sleeper {
	pthread_t t;
	int cpu;
	char *p;
	int ready[2], go[2];
};

static void *sleeper_fn(void *arg)
{
	struct sleeper *s = arg;
	char c = 0;

	pin(s->cpu);
	touch(s->p, 1);
	if (write(s->ready[1], &c, 1) != 1 || read(s->go[0], &c, 1) != 1)
		die("sleeper pipe");
	return NULL;
}

static void wl_dontneed1_threads(void)
{
	struct sleeper s[64];
	int i, n = ncpus - 1, iters = 100;
	char *p = map(1), c = 0;

	if (n > 64)
		n = 64;
	for (i = 0; i < n; i++) {
		s[i].cpu = i + 1;
		s[i].p = p;
		if (pipe(s[i].ready) || pipe(s[i].go))
			die("pipe");
		if (pthread_create(&s[i].t, NULL, sleeper_fn, &s[i]))
			die("pthread_create");
		if (read(s[i].ready[0], &c, 1) != 1)
			die("ready");
	}
	for (i = 0; i < WARM + iters; i++) {
		touch(p, 1);
		if (i >= WARM)
			ON();
		madvise(p, PAGE, MADV_DONTNEED);
		if (i >= WARM)
			OFF();
	}
	report("dontneed-1-threads", iters);
	for (i = 0; i < n; i++) {
		if (write(s[i].go[1], &c, 1) != 1)
			die("go");
		pthread_join(s[i].t, NULL);
	}
}

/* fork() of a process with 64 touched pages, the child's exit, wait. */
static void wl_fork(void)
{
	char *p = map(64);
	int i, iters = 20;
	pid_t pid;

	touch(p, 64);
	for (i = 0; i < WARM + iters; i++) {
		if (i >= WARM)
			ON();
		pid = fork();
		if (pid < 0)
			die("fork");
		if (!pid)
			_exit(0);
		waitpid(pid, NULL, 0);
		if (i >= WARM)
			OFF();
		/* Writing again breaks the COW the fork made. */
		touch(p, 64);
	}
	report("fork-exit", iters);
}

/* A byte back and forth between processes on CPU 0 and CPU 1. */
static void wl_pipe(void)
{
	int ab[2], ba[2], i, iters = 100;
	char c = 0;
	pid_t pid;

	if (pipe(ab) || pipe(ba))
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		pin(1);
		for (i = 0; i < WARM + iters; i++)
			if (read(ab[0], &c, 1) != 1 || write(ba[1], &c, 1) != 1)
				_exit(1);
		_exit(0);
	}
	for (i = 0; i < WARM + iters; i++) {
		if (i >= WARM)
			ON();
		if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1)
			die("ping-pong");
		if (i >= WARM)
			OFF();
	}
	waitpid(pid, NULL, 0);
	report("pipe-pingpong", iters);
}

/* munmap() of 1024 touched pages, above every arch's default max_ops. */
static void wl_munmap_large(void)
{
	int i, iters = 10;
	char *p;

	for (i = 0; i < WARM + iters; i++) {
		p = map(1024);
		touch(p, 1024);
		if (i >= WARM)
			ON();
		munmap(p, 1024 * PAGE);
		if (i >= WARM)
			OFF();
	}
	report("munmap-1024", iters);
}

/* MADV_PAGEOUT of 64 pages to swap: reclaim's batched unmap flush. */
static void wl_pageout(void)
{
	char *p = map(64);
	int i, iters = 20;

	for (i = 0; i < WARM + iters; i++) {
		touch(p, 64);
		if (i >= WARM)
			ON();
		if (madvise(p, 64 * PAGE, MADV_PAGEOUT))
			die("MADV_PAGEOUT");
		if (i >= WARM)
			OFF();
	}
	report("pageout-64", iters);
}

static void (*const workloads[])(void) = {
	wl_dontneed1, wl_dontneed64, wl_mprotect64, wl_mprotect64_write,
	wl_dontneed1_threads, wl_fork, wl_pipe, wl_munmap_large, wl_pageout,
};

int main(void)
{
	unsigned int i;
	int status;
	pid_t pid;

	setvbuf(stdout, NULL, _IOLBF, 0);
	ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (ncpus < 2) {
		printf("tlbp-cost: FAIL needs 2 CPUs, has %d\n", ncpus);
		return 1;
	}
	pin(0);
	for (i = 0; i < sizeof(workloads) / sizeof(workloads[0]); i++) {
		pid = fork();
		if (pid < 0)
			die("fork");
		if (!pid) {
			workloads[i]();
			_exit(0);
		}
		if (waitpid(pid, &status, 0) != pid || status) {
			printf("tlbp-cost: FAIL workload %u exit status %d\n",
			       i, status);
			return 1;
		}
	}
	printf("tlbp-cost: done\n");
	return 0;
}
