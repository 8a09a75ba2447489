// SPDX-License-Identifier: GPL-2.0
/*
 * TLB coherence test.
 *
 * Reader threads, pinned to every CPU but the first, load translations
 * of a region. The writer, on the first CPU, then changes the mapping
 * (MADV_DONTNEED, mprotect, munmap, a MAP_FIXED remap, a COW break after
 * fork, NUMA migration) and, once the system call has returned, tells
 * the readers to look again. By then the kernel must have invalidated
 * every TLB entry for the old mapping, so each reader must see the new
 * contents or take a fault. Seeing the old contents is a stale read: a
 * missed TLB flush, which is a use-after-free of the old page.
 *
 * The cpu_hop case runs in a new process with no other threads instead:
 * first a new thread on another CPU reads the pages from its first
 * instruction while the first thread changes the mapping without waiting
 * for it, racing the first switch-in against the flush; then it loads
 * translations on one CPU, moves to another and changes the mapping
 * there, then moves back and looks; and the same the other way round; and
 * last, a second thread holds translations on the other CPU while the
 * first changes the mapping. It catches a kernel that wrongly keeps a
 * flush on the flushing CPU because it thinks the process never ran
 * anywhere else.
 *
 * The own_cpu case is the other side: new processes that only ever run on
 * one CPU change their own mappings and read them back there. The kernel
 * may keep those flushes on that CPU, but must still do them.
 *
 * The pageout case reclaims the pages to swap with MADV_PAGEOUT, which
 * goes through the batched flush of reclaim; it is skipped without swap.
 *
 * The lazy case zaps with MADV_DONTNEED while the readers sleep, so that
 * their CPUs are idle with the process's mm still loaded (lazy TLB): a
 * kernel may skip such CPUs, but must then flush them when they return
 * to the mm, which they do without loading a new address space. (From
 * 512 pages on, the zap may free a page table, and its flush then reaches
 * lazy CPUs directly.)
 *
 * Two cases change the system under the flushes: hotplug zaps with
 * MADV_DONTNEED while a child process takes the last reader's CPU offline
 * and back online (the readers pin themselves again before each look),
 * and switch changes protections with mprotect while a child process
 * writes the policy's max_ops in debugfs, which is put back afterwards
 * (the method and the accessed-bit mode are set at boot only, and their
 * files must refuse a write). They are destructive, and run only with
 * -D (run_vmtests.sh passes it with its own -d); without it they are
 * skipped, even when named with -c. Each is skipped without its files,
 * and fails if its child never got a write through.
 *
 * A generation counter, bumped by the writer only while the readers are
 * idle, says which phase a reader is checking, so that a read can never
 * be blamed on a change that was still in progress. Every old value is
 * unique to its round and page, so a reused page cannot be mistaken for
 * a stale one.
 *
 * With -t, the test measures the throughput of flush-heavy operations
 * instead, and with -a it does both. Each measurement runs in a new
 * process, as it would from a shell; it fails if that process does not
 * finish cleanly or gets nothing done, and its figures are only printed.
 * For them it turns the kernel's TLB flush policy counters on, when
 * /sys/kernel/debug/tlb_policy/stats exists and they are not counting
 * already, and ends by printing them.
 *
 * What the test changes in the system is put back when it exits, and
 * also when it is killed by SIGINT, SIGTERM (the kselftest runner's
 * timeout) or SIGHUP, or when a case outlives its own watchdog, an
 * alarm() well beyond the case's length and its waits.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../kselftest.h"

/* Shared variables are only accessed through these. */
#define LOAD(x)		__atomic_load_n(&(x), __ATOMIC_ACQUIRE)
#define STORE(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELEASE)
#define INC(x)		__atomic_add_fetch(&(x), 1, __ATOMIC_RELAXED)

#define STATS_FILE	"/sys/kernel/debug/tlb_policy/stats"
#define MAX_READERS	63
#define MAX_PAGES	1024
/* How long the writer waits for a reader or a child before it gives up. */
#define WAIT_SECS	60

/* Range sizes around each architecture's default max_ops. */
static const int sizes[] = {
	1, 2, 31, 32, 33, 34, 63, 64, 65, 127, 128, 129, 511, 512, 513, 1024,
};

enum expect { EXPECT_ZERO, EXPECT_FAULT, EXPECT_NEW };

struct tcase {
	const char *name;
	enum expect expect;
	int (*setup)(int pages);
	int (*change)(int pages);
	void (*cleanup)(int pages);
	bool own;		/* also run by own_cpu */
	bool lazy;		/* readers sleep through the change */
	bool transient;		/* EAGAIN, EBUSY, ENOMEM: skip the round */
	/* What it does to the system, for a case that only -D runs. */
	const char *destructive;
	/* Run by a child while the rounds run; 0, or why it cannot. */
	const char *(*churn_check)(void);
	void (*churn)(void);
	/* Put back; false if it cannot. Async-signal-safe. */
	bool (*churn_done)(void);
};

static long page_size;
static double case_secs;	/* how long each case runs */
static bool allow_destructive;	/* -D */
static bool have_swap;
static int nr_readers;
static int reader_cpu[MAX_READERS];
static char *region;
static int memfd = -1;
static pid_t child;
static int child_pipe[2];

/* Shared with the readers. */
static unsigned long gen;	/* odd: load (A), even: check (B) */
static int nr_pages;
static unsigned long old_base;	/* old value of page i: base + i */
static unsigned long new_base;
static int expect;
static bool stop;
static int park;		/* readers sleep while it is set */
static int repin;		/* readers pin themselves before each look */
static unsigned long *churned;	/* writes the churn child got through */
static int first_page;		/* where the readers start each look */
static unsigned long acks;
static unsigned long done_gen[MAX_READERS];	/* each reader's last phase */
static unsigned long checks, stale, unexpected;

static __thread sigjmp_buf fault_jmp;
static __thread bool fault_armed;

static void segv_handler(int sig)
{
	if (!__atomic_load_n(&fault_armed, __ATOMIC_RELAXED))
		abort();
	siglongjmp(fault_jmp, 1);
}

static void arm_fault(bool on)
{
	__atomic_store_n(&fault_armed, on, __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

static unsigned long *word(int i)
{
	return (unsigned long *)(region + (long)i * page_size);
}

/*
 * Read the first word of page i; return false if the read faulted.
 *
 * Nothing here enters the kernel: sigsetjmp() does not save the signal
 * mask (the handler is installed with SA_NODEFER instead, so SIGSEGV is
 * never left blocked), because saving it is a system call, and on x86
 * with page table isolation but no PCID every return from the kernel
 * flushes the whole TLB, which would hide any missed flush.
 */
static bool read_page(int i, unsigned long *val)
{
	if (sigsetjmp(fault_jmp, 0)) {
		arm_fault(false);
		return false;
	}
	arm_fault(true);
	*val = __atomic_load_n(word(i), __ATOMIC_RELAXED);
	arm_fault(false);
	return true;
}

static int try_pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

static void pin(int cpu)
{
	if (try_pin(cpu))
		ksft_exit_fail_msg("pinning to CPU %d: %s\n", cpu, strerror(errno));
}

enum verdict { AS_EXPECTED, STALE, UNEXPECTED };

/*
 * Judge a read once the change is complete: @ok says whether it did not
 * fault, @v is what it read, @old and @new the page's old and new values.
 * The old value is a stale read, whatever else was expected.
 */
static enum verdict judge(bool ok, unsigned long v, unsigned long old,
			  unsigned long new, int want)
{
	if (ok && v == old)
		return STALE;
	if (want == EXPECT_FAULT ? ok :
	    want == EXPECT_ZERO ? !ok || v :
	    !ok || v != new)
		return UNEXPECTED;
	return AS_EXPECTED;
}

static void *reader(void *arg)
{
	unsigned long seen = 0, g, v, old, new;
	int idx = (long)arg, cpu = reader_cpu[idx], i, j, n, want, first;
	enum verdict verdict;

	pin(cpu);
	for (;;) {
		while ((g = LOAD(gen)) == seen && !LOAD(stop))
			if (LOAD(park))
				syscall(SYS_futex, &park, FUTEX_WAIT_PRIVATE, 1,
					NULL, NULL, 0);
		if (LOAD(stop))
			break;
		seen = g;
		/* Back on its CPU, if it went offline and came back. */
		if (LOAD(repin))
			try_pin(cpu);
		n = LOAD(nr_pages);
		old = LOAD(old_base);
		new = LOAD(new_base);
		want = LOAD(expect);
		first = LOAD(first_page);
		for (j = 0; j < n; j++) {
			bool ok;

			/*
			 * Start somewhere else each round: where a kernel entry
			 * flushes the whole TLB (x86 with page table isolation
			 * and no PCID), the first fault of a look, a correct
			 * one included, hides every stale entry after it.
			 */
			i = (first + j) % n;
			ok = read_page(i, &v);

			if (g & 1) {
				/* Phase A: load the translation of the old page. */
				if (!ok || v != old + i)
					INC(unexpected);
				continue;
			}
			/* Phase B: the change is complete. */
			INC(checks);
			verdict = judge(ok, v, old + i, new + i, want);
			if (verdict == STALE)
				INC(stale);
			else if (verdict == UNEXPECTED)
				INC(unexpected);
		}
		STORE(done_gen[idx], g);
		__atomic_add_fetch(&acks, 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Start a phase (or, with @step 2, a repeat of phase A) and wait until
 * every reader has finished it, for WAIT_SECS at most: then name the
 * readers that did not, and fail.
 */
static void run_phase_step(unsigned long step)
{
	unsigned long want = LOAD(acks) + nr_readers, g = gen + step;
	double end = now() + WAIT_SECS;
	unsigned int spins = 0;
	int i;

	STORE(gen, g);
	while (LOAD(acks) < want) {
		if (++spins % 4096 || now() < end)
			continue;
		for (i = 0; i < nr_readers; i++)
			if (LOAD(done_gen[i]) != g)
				ksft_print_msg("reader on CPU %d stuck before phase %lu\n",
					       reader_cpu[i], g);
		ksft_exit_fail_msg("readers stuck for %d s\n", WAIT_SECS);
	}
}

static void run_phase(void)
{
	run_phase_step(1);
}

/*
 * Make a value unique to a tag, a round and a page (the page index is
 * added to it): the tag in the top bits, then the round, then 12 bits
 * for the index. Rounds wrap after 2^24 on 64-bit, 2^12 on 32-bit.
 */
static unsigned long make_base(unsigned int tag, unsigned long round)
{
#if ULONG_MAX > 0xffffffffUL
	return (unsigned long)(tag & 0xffff) << 48 | (round & 0xffffff) << 12;
#else
	return (unsigned long)(tag & 0xff) << 24 | (round & 0xfff) << 12;
#endif
}

/*
 * Wait for a child for WAIT_SECS at most; kill it if it takes longer.
 * Return whether it exited with 0.
 */
static bool wait_child_ok(pid_t pid, const char *name)
{
	double end = now() + WAIT_SECS + case_secs;
	int status;
	pid_t r;

	while ((r = waitpid(pid, &status, WNOHANG)) == 0) {
		if (now() > end) {
			ksft_print_msg("%s: child %d still running after %.0f s, killed\n",
				       name, pid, WAIT_SECS + case_secs);
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			return false;
		}
		usleep(1000);
	}
	return r == pid && WIFEXITED(status) && !WEXITSTATUS(status);
}

/* ---- putting the system back ------------------------------------------ */

/*
 * The test process: its threads may put the system back, its children
 * never (they inherit the signal handlers and the atexit() hook).
 */
static pid_t main_pid;
/* The signals that put the system back; blocked while it is put back. */
static sigset_t put_back_sigs;
static char watchdog_msg[128];

/* Async-signal-safe, like write_file(). */
static void say(const char *msg)
{
	ssize_t n = write(STDOUT_FILENO, msg, strlen(msg));

	(void)n;
}

/* Write @val to @path in one write(). Async-signal-safe. */
static bool write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY);
	bool ok;

	if (fd < 0)
		return false;
	ok = write(fd, val, strlen(val)) == (ssize_t)strlen(val);
	close(fd);
	return ok;
}

/* Keep this thread from running the handler of put_back_sigs, or not. */
static void block_put_back(bool on, sigset_t *old)
{
	if (on)
		pthread_sigmask(SIG_BLOCK, &put_back_sigs, old);
	else
		pthread_sigmask(SIG_SETMASK, old, NULL);
}

/*
 * Arm the watchdog for one case of @secs seconds. Every wait in a case
 * gives up on its own after WAIT_SECS; this catches what none of them
 * can, such as a system call that never returns. On SIGALRM the test
 * puts the system back and bails out.
 */
static void watchdog_arm(const char *name, double secs)
{
	unsigned int limit = 2 * secs + 4 * WAIT_SECS + 10;

	snprintf(watchdog_msg, sizeof(watchdog_msg),
		 "Bail out! %s: still running after %u s, watchdog\n", name, limit);
	alarm(limit);
}

static void fill(unsigned long base, int pages)
{
	int i;

	for (i = 0; i < pages; i++)
		*word(i) = base + i;
}

static char *map_anon(void)
{
	char *p = mmap(region, MAX_PAGES * page_size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);

	if (p == MAP_FAILED)
		ksft_exit_fail_msg("mmap: %s\n", strerror(errno));
	/*
	 * The cases test the flushes of page-sized mappings: keep a huge
	 * page out, which changes of a few pages would split first. Fails
	 * harmlessly without CONFIG_TRANSPARENT_HUGEPAGE.
	 */
	madvise(p, MAX_PAGES * page_size, MADV_NOHUGEPAGE);
	return p;
}

static int setup_anon(int pages)
{
	map_anon();
	fill(old_base, pages);
	return 0;
}

static int change_dontneed(int pages)
{
	return madvise(region, pages * page_size, MADV_DONTNEED);
}

static int change_mprotect(int pages)
{
	return mprotect(region, pages * page_size, PROT_NONE);
}

static int change_munmap(int pages)
{
	return munmap(region, pages * page_size);
}

/* The memfd holds the old data in its first half, the new in its second. */
static int setup_remap(int pages)
{
	char *p = mmap(region, MAX_PAGES * page_size, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_FIXED, memfd, MAX_PAGES * page_size);

	if (p == MAP_FAILED)
		return -1;
	fill(new_base, pages);
	p = mmap(region, MAX_PAGES * page_size, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_FIXED, memfd, 0);
	if (p == MAP_FAILED)
		return -1;
	fill(old_base, pages);
	return 0;
}

static int change_remap(int pages)
{
	char *p = mmap(region, pages * page_size, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_FIXED, memfd, MAX_PAGES * page_size);

	return p == MAP_FAILED ? -1 : 0;
}

/* The child keeps the old pages; the parent's writes break COW. */
static int change_cow(int pages)
{
	char c;

	if (pipe(child_pipe))
		return -1;
	child = fork();
	if (child < 0)
		return -1;
	if (!child) {
		close(child_pipe[1]);
		if (read(child_pipe[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	close(child_pipe[0]);
	fill(new_base, pages);
	return 0;
}

static void cleanup_cow(int pages)
{
	close(child_pipe[1]);
	waitpid(child, NULL, 0);
}

static long move_pages(int pages, int node, int *status)
{
	void *addrs[MAX_PAGES];
	int nodes[MAX_PAGES];
	int i;

	for (i = 0; i < pages; i++) {
		addrs[i] = word(i);
		nodes[i] = node;
	}
	return syscall(__NR_move_pages, 0, pages, addrs, nodes, status, 0);
}

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT	21
#endif

static unsigned long paged_out, paged_total;

/*
 * Reclaim the pages to swap, then write. Reclaim unmaps them with
 * try_to_unmap() and TTU_BATCH_FLUSH, the batched flush of
 * arch_tlbbatch_add_pending() and arch_tlbbatch_flush(), and frees them
 * once they are written out; the write faults new pages in. A CPU that
 * missed the batched flush still reads the freed page. Pages that are
 * still resident afterwards were not reclaimed and test nothing; they are
 * counted, so that a run that reclaimed nothing shows.
 */
static int change_pageout(int pages)
{
	unsigned char vec[MAX_PAGES];
	int i;

	if (madvise(region, pages * page_size, MADV_PAGEOUT) ||
	    mincore(region, pages * page_size, vec))
		return -1;
	for (i = 0; i < pages; i++)
		paged_out += !(vec[i] & 1);
	paged_total += pages;
	fill(new_base, pages);
	return 0;
}

/* Whether @tc reclaims to swap, and there is none. */
static bool lacks_swap(const struct tcase *tc)
{
	return tc->change == change_pageout && !have_swap;
}

/* Whether /proc/swaps lists any swap area. */
static bool swap_on(void)
{
	char line[256];
	int n = 0;
	FILE *f = fopen("/proc/swaps", "r");

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		n++;
	fclose(f);
	return n > 1;
}

/*
 * Move every page to @node, trying again a few times: migration fails
 * for a while when something else holds a page. EAGAIN if some stayed.
 */
static int move_all(int pages, int node)
{
	int status[MAX_PAGES], tries, i, moved;

	for (tries = 0; tries < 10; tries++) {
		/* The kernel may fill in no status when the call fails. */
		for (i = 0; i < pages; i++)
			status[i] = -1;
		if (move_pages(pages, node, status) < 0 && errno != EBUSY &&
		    errno != EAGAIN && errno != ENOMEM)
			return -1;
		for (i = 0, moved = 0; i < pages; i++)
			moved += status[i] == node;
		if (moved == pages)
			return 0;
		usleep(1000);
	}
	errno = EAGAIN;
	return -1;
}

/* Migrate to the other node, then write: stale TLBs see the old page. */
static int change_migrate(int pages)
{
	if (move_all(pages, 1))
		return -1;
	fill(new_base, pages);
	return 0;
}

static int setup_migrate(int pages)
{
	setup_anon(pages);
	/* Start on node 0, so that the change has somewhere to go. */
	return move_all(pages, 0);
}

static void park_readers(bool on)
{
	STORE(park, on);
	if (on)
		usleep(20000);	/* let them fall asleep, leaving their CPUs idle */
	else
		syscall(SYS_futex, &park, FUTEX_WAKE_PRIVATE, INT_MAX, NULL,
			NULL, 0);
}

/* ---- hotplug and switch: the system changes under the flushes --------- */

#define DEBUGFS_DIR	"/sys/kernel/debug/tlb_policy/"

static char hotplug_path[64];

static bool read_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return false;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return true;
}

/*
 * A riscv hart may still be stopping: try for up to a second.
 * Async-signal-safe (nanosleep(), not usleep()).
 */
static bool hotplug_online(void)
{
	struct timespec ts = { .tv_nsec = 10000000 };
	int tries;

	if (!hotplug_path[0])
		return true;	/* set before any CPU goes offline */
	for (tries = 0; tries < 100; tries++) {
		if (write_file(hotplug_path, "1"))
			return true;
		nanosleep(&ts, NULL);
	}
	return false;
}

static const char *hotplug_check(void)
{
	char buf[8];

	snprintf(hotplug_path, sizeof(hotplug_path),
		 "/sys/devices/system/cpu/cpu%d/online",
		 reader_cpu[nr_readers - 1]);
	if (!read_file(hotplug_path, buf, sizeof(buf)) || strcmp(buf, "1"))
		return "the last reader's CPU cannot go offline";
	/* A trial: without the right, or on a CPU that refuses, skip. */
	if (!write_file(hotplug_path, "0"))
		return "the last reader's CPU does not go offline";
	if (!hotplug_online())
		ksft_exit_fail_msg("%s: cannot bring the CPU back\n",
				   hotplug_path);
	return NULL;
}

static void hotplug_churn(void)
{
	for (;;) {
		if (write_file(hotplug_path, "0"))
			INC(*churned);
		usleep(10000);
		if (hotplug_online())
			INC(*churned);
		usleep(10000);
	}
}

/* The max_ops to put back. */
static char saved_max_ops[32];

/*
 * The setting in force of a debugfs file that lists the choices with the
 * one in force in brackets, "[auto:broadcast] ipi broadcast" giving
 * "auto"; false if the file cannot be read or has none.
 */
static bool in_force(const char *path, char *out, size_t size)
{
	char buf[128], *open, *end;

	if (!read_file(path, buf, sizeof(buf)))
		return false;
	open = strchr(buf, '[');
	if (!open)
		return false;
	end = open + 1 + strcspn(open + 1, ":]");
	*end = '\0';
	snprintf(out, size, "%s", open + 1);
	return true;
}

static const char *switch_check(void)
{
	static const char * const boot_only[] = { "method", "young" };
	char path[64], val[32];
	unsigned int i;

	if (!read_file(DEBUGFS_DIR "max_ops", saved_max_ops,
		       sizeof(saved_max_ops)))
		return "no " DEBUGFS_DIR;
	/*
	 * The method and the accessed-bit mode are set at boot: a write of
	 * the value in force, which would change nothing, must be refused.
	 */
	for (i = 0; i < ARRAY_SIZE(boot_only); i++) {
		snprintf(path, sizeof(path), DEBUGFS_DIR "%s", boot_only[i]);
		if (in_force(path, val, sizeof(val)) && write_file(path, val))
			ksft_exit_fail_msg("%s took a write of \"%s\"\n",
					   path, val);
	}
	return NULL;
}

static void switch_churn(void)
{
	static const char * const max_ops[] = { "0", "1", "33", "64", "511" };
	unsigned int i;

	for (i = 0;; i++) {
		if (write_file(DEBUGFS_DIR "max_ops",
			       max_ops[i % ARRAY_SIZE(max_ops)]))
			INC(*churned);
		usleep(1000);
	}
}

static bool switch_done(void)
{
	return saved_max_ops[0] &&
	       write_file(DEBUGFS_DIR "max_ops", saved_max_ops);
}

/*
 * The case that changed the system and has not put it back yet, from
 * its churn_check() on, and its churning child, if it runs. The child
 * dies with this process, and what the case changed is put back on any
 * exit, on a signal and by the watchdog (put_back()).
 */
static const struct tcase *changed_by;
static pid_t churn_pid;

/*
 * Kill the churning child, then put back what its case changed; false if
 * that failed. Async-signal-safe.
 */
static bool churn_put_back(void)
{
	pid_t pid = __atomic_exchange_n(&churn_pid, 0, __ATOMIC_ACQ_REL);
	const struct tcase *tc;

	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	tc = __atomic_exchange_n(&changed_by, NULL, __ATOMIC_ACQ_REL);
	return !tc || tc->churn_done();
}

static void churn_stop(const struct tcase *tc)
{
	sigset_t old;
	bool ok;

	block_put_back(true, &old);
	ok = churn_put_back();
	block_put_back(false, &old);
	if (!ok)
		ksft_print_msg("%s: cannot put back what the child changed\n",
			       tc->name);
}

static void churn_start(const struct tcase *tc)
{
	sigset_t old;
	pid_t pid;

	*churned = 0;
	/* No signal may find the child running and churn_pid not set. */
	block_put_back(true, &old);
	pid = fork();
	if (pid > 0)
		STORE(churn_pid, pid);
	block_put_back(false, &old);
	if (pid < 0)
		ksft_exit_fail_msg("fork: %s\n", strerror(errno));
	if (pid)
		return;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != main_pid)
		_exit(0);
	/* Off CPU 0, where the writer spins, and off the CPU it unplugs. */
	if (nr_readers > 1)
		try_pin(reader_cpu[0]);
	tc->churn();
	_exit(0);
}

#define TCASE(n, e, s, c, ...) \
	{ .name = n, .expect = e, .setup = s, .change = c, __VA_ARGS__ }
static const struct tcase cases[] = {
	TCASE("madv_dontneed", EXPECT_ZERO, setup_anon, change_dontneed,
	      .own = true),
	TCASE("mprotect", EXPECT_FAULT, setup_anon, change_mprotect,
	      .own = true),
	TCASE("munmap", EXPECT_FAULT, setup_anon, change_munmap, .own = true),
	TCASE("mmap_fixed", EXPECT_NEW, setup_remap, change_remap,
	      .own = true),
	TCASE("fork_cow", EXPECT_NEW, setup_anon, change_cow,
	      .cleanup = cleanup_cow),
	TCASE("migrate", EXPECT_NEW, setup_migrate, change_migrate,
	      .transient = true),
	TCASE("pageout", EXPECT_NEW, setup_anon, change_pageout, .own = true),
	TCASE("lazy", EXPECT_ZERO, setup_anon, change_dontneed, .lazy = true),
	TCASE("hotplug", EXPECT_ZERO, setup_anon, change_dontneed,
	      .destructive = "takes a CPU offline and online",
	      .churn_check = hotplug_check, .churn = hotplug_churn,
	      .churn_done = hotplug_online),
	TCASE("switch", EXPECT_FAULT, setup_anon, change_mprotect,
	      .destructive = "rewrites the system's TLB flush max_ops",
	      .churn_check = switch_check, .churn = switch_churn,
	      .churn_done = switch_done),
};

/* 0 if a page can move to node 1, else why not (an errno value). */
static int numa_err(void)
{
	int status = 0;

	setup_anon(1);
	if (move_pages(1, 1, &status) < 0)
		return errno;
	/* move_pages() reports a page it did not move in its status. */
	return status == 1 ? 0 : status < 0 ? -status : EAGAIN;
}

static void run_case(const struct tcase *tc, double seconds)
{
	unsigned long rounds = 0, round_id = 0, abandoned = 0;
	double end = now() + seconds;
	const char *why;
	bool last = false;
	int k = 0, err;

	if (tc->destructive && !allow_destructive) {
		ksft_test_result_skip("%s: %s, run with -D to allow it\n",
				      tc->name, tc->destructive);
		return;
	}
	watchdog_arm(tc->name, seconds);
	STORE(checks, 0);
	STORE(stale, 0);
	STORE(unexpected, 0);
	err = tc->change == change_migrate ? numa_err() : 0;
	if (err) {
		ksft_test_result_skip("%s: move_pages() to node 1 failed: %s\n",
				      tc->name, strerror(err));
		return;
	}
	if (lacks_swap(tc)) {
		ksft_test_result_skip("%s: needs swap\n", tc->name);
		return;
	}
	if (tc->churn_check) {
		/* Before the check, which may change the system already. */
		STORE(changed_by, tc);
		why = tc->churn_check();
		if (why) {
			STORE(changed_by, NULL);
			ksft_test_result_skip("%s: %s\n", tc->name, why);
			return;
		}
	}
	if (tc->churn) {
		churn_start(tc);
		STORE(repin, 1);
	}
	paged_out = 0;
	paged_total = 0;
	for (;;) {
		int pages = sizes[k++ % ARRAY_SIZE(sizes)];

		round_id++;
		STORE(old_base, make_base(0xa5a5, round_id));
		STORE(new_base, make_base(0x5a5a, round_id));
		STORE(expect, tc->expect);
		STORE(first_page, (int)(round_id % pages));
		if (tc->setup(pages)) {
			if (tc->transient && (errno == EAGAIN || errno == EBUSY ||
					      errno == ENOMEM)) {
				abandoned++;
				goto next;
			}
			ksft_exit_fail_msg("%s: setup: %s\n", tc->name, strerror(errno));
		}
		STORE(nr_pages, pages);
		run_phase();		/* A: every reader loads the old page */
		if (tc->lazy)
			park_readers(true);
		if (tc->change(pages)) {
			if (tc->transient && (errno == EAGAIN || errno == EBUSY ||
					      errno == ENOMEM)) {
				/*
				 * Not every page moved: nothing can be judged.
				 * Repeat phase A instead of B, and go on.
				 */
				if (tc->lazy)
					park_readers(false);
				run_phase_step(2);
				abandoned++;
				goto next;
			}
			ksft_exit_fail_msg("%s: change of %d pages: %s\n", tc->name,
					   pages, strerror(errno));
		}
		if (tc->lazy)
			park_readers(false);
		run_phase();		/* B: every reader must see the change */
		if (tc->cleanup)
			tc->cleanup(pages);
		rounds++;
next:
		if (last)
			break;
		if (now() < end || k < (int)ARRAY_SIZE(sizes) ||
		    (tc->churn && !LOAD(*churned) && now() < end + 10))
			continue;
		if (!tc->churn)
			break;
		/* One more round, in which the readers pin themselves back. */
		churn_stop(tc);
		last = true;
	}
	if (tc->churn) {
		STORE(repin, 0);
		ksft_print_msg("%s: %lu changes by the churning child\n",
			       tc->name, LOAD(*churned));
	}
	ksft_print_msg("%s: rounds=%lu checks=%lu stale=%lu unexpected=%lu\n",
		       tc->name, rounds, checks, stale, unexpected);
	if (paged_total)
		ksft_print_msg("%s: %lu of %lu pages reclaimed\n", tc->name,
			       paged_out, paged_total);
	if (abandoned)
		ksft_print_msg("%s: %lu rounds abandoned, not every page moved\n",
			       tc->name, abandoned);
	if (stale || unexpected || (tc->churn && !LOAD(*churned)))
		ksft_test_result_fail("%s\n", tc->name);
	else if (tc->change == change_pageout && !paged_out)
		ksft_test_result_skip("%s: swap is on, but nothing was reclaimed\n",
				      tc->name);
	else if (!rounds)
		ksft_test_result_skip("%s: no round could be judged\n", tc->name);
	else
		ksft_test_result_pass("%s\n", tc->name);
}

/* ---- cpu_hop ---------------------------------------------------------- */

/* Counters of the cpu_hop and own_cpu children, shared with them. */
static unsigned long *child_count;	/* checks, stale, unexpected */

/* Read every page back once the change is complete, and count. */
static void child_check(int pages, unsigned long old, unsigned long new,
			int want)
{
	enum verdict verdict;
	unsigned long v;
	int i;

	for (i = 0; i < pages; i++) {
		bool ok = read_page(i, &v);

		INC(child_count[0]);
		verdict = judge(ok, v, old + i, new + i, want);
		if (verdict == STALE)
			INC(child_count[1]);
		else if (verdict == UNEXPECTED)
			INC(child_count[2]);
	}
}

/* Wait for a cpu_hop or own_cpu child, which must exit with 0. */
static void wait_child(pid_t pid, const char *name)
{
	if (!wait_child_ok(pid, name))
		ksft_exit_fail_msg("%s: child failed\n", name);
}

/* The result of a case whose children counted in child_count. */
static void report_children(const char *name, unsigned long rounds)
{
	ksft_print_msg("%s: rounds=%lu checks=%lu stale=%lu unexpected=%lu\n",
		       name, rounds, child_count[0], child_count[1],
		       child_count[2]);
	ksft_test_result(!child_count[1] && !child_count[2], "%s\n", name);
}

/* Every page must now read as zero, the new (empty) contents. */
static void hop_check(int pages, unsigned long old)
{
	child_check(pages, old, 0, EXPECT_ZERO);
}

static void hop_load(int pages)
{
	unsigned long v;
	int i;

	for (i = 0; i < pages; i++)
		if (!read_page(i, &v))
			INC(child_count[2]);
}

/*
 * A new process, so a new mm that has only ever run on CPU a (the parent
 * is pinned there, and so is the child at first).
 */
struct hop_holder_arg {
	int pages;
	unsigned long old;
	int phase;		/* 1: loaded, 2: changed, look now */
};

/*
 * Load translations on this thread's CPU and stay there, spinning, until
 * the other thread has made its change: no context switch on this CPU
 * can drop them meanwhile.
 */
static void *hop_holder(void *p)
{
	struct hop_holder_arg *h = p;

	hop_load(h->pages);
	STORE(h->phase, 1);
	while (LOAD(h->phase) != 2)
		;
	hop_check(h->pages, h->old);
	return NULL;
}

/*
 * Read the pages round and round from this thread's first instruction on
 * its CPU, racing the other thread's change, until that change is
 * complete; then every page must read as zero.
 */
static void *hop_racer(void *p)
{
	struct hop_holder_arg *h = p;
	unsigned long v;
	int i = 0;

	while (LOAD(h->phase) != 2) {
		read_page(i, &v);
		i = (i + 1) % h->pages;
	}
	hop_check(h->pages, h->old);
	return NULL;
}

static void hop_child(int a, int b, int pages, unsigned long base)
{
	struct hop_holder_arg h = {
		.pages = pages, .old = base + 2 * MAX_PAGES,
	};
	struct hop_holder_arg race = {
		.pages = pages, .old = base + 3 * MAX_PAGES,
	};
	pthread_attr_t attr;
	pthread_t tid;
	cpu_set_t set;
	double end;

	map_anon();
	CPU_ZERO(&set);
	CPU_SET(b, &set);
	if (pthread_attr_init(&attr) ||
	    pthread_attr_setaffinity_np(&attr, sizeof(set), &set))
		_exit(1);

	/*
	 * A first switch-in on b racing a change on a, where alone the
	 * process has run so far: the change does not wait for the new
	 * thread, which reads from its first instruction on.
	 */
	fill(race.old, pages);
	if (pthread_create(&tid, &attr, hop_racer, &race))
		_exit(1);
	madvise(region, pages * page_size, MADV_DONTNEED);
	STORE(race.phase, 2);
	pthread_join(tid, NULL);

	/* Translations on a; the change is made on b. */
	fill(base, pages);
	pin(b);
	madvise(region, pages * page_size, MADV_DONTNEED);
	pin(a);
	hop_check(pages, base);

	/* Translations on a and b; the change is made on a. */
	fill(base + MAX_PAGES, pages);
	pin(b);
	hop_load(pages);
	pin(a);
	madvise(region, pages * page_size, MADV_DONTNEED);
	pin(b);
	hop_check(pages, base + MAX_PAGES);

	/* Translations held on b by a second thread; the change is on a. */
	pin(a);
	fill(h.old, pages);
	if (pthread_create(&tid, &attr, hop_holder, &h))
		_exit(1);
	end = now() + WAIT_SECS;
	while (LOAD(h.phase) != 1) {
		if (now() > end)
			_exit(2);
		sched_yield();
	}
	madvise(region, pages * page_size, MADV_DONTNEED);
	STORE(h.phase, 2);
	pthread_join(tid, NULL);
	_exit(0);
}

static void run_hop(double seconds)
{
	unsigned long rounds = 0;
	double end = now() + seconds;
	int k = 0;
	pid_t pid;

	watchdog_arm("cpu_hop", seconds);
	memset(child_count, 0, 3 * sizeof(*child_count));
	park_readers(true);
	do {
		int pages = sizes[k % ARRAY_SIZE(sizes)];
		int b = reader_cpu[k % nr_readers];

		k++;
		pid = fork();
		if (pid < 0)
			ksft_exit_fail_msg("fork: %s\n", strerror(errno));
		if (!pid)
			hop_child(0, b, pages, make_base(0x9696, k));
		wait_child(pid, "cpu_hop");
		rounds++;
	} while (now() < end || k < (int)ARRAY_SIZE(sizes));
	park_readers(false);

	report_children("cpu_hop", rounds);
}

/* ---- own_cpu ---------------------------------------------------------- */

/*
 * A new process that has only ever run on one CPU makes each change of
 * the cases marked .own to its own mapping, at every size, and reads the
 * pages back on the same CPU. The kernel may then keep the flush on that
 * CPU (arm64 does, by default); it must still flush there. Nothing else
 * runs in the process, and it never leaves its CPU, so no case here
 * depends on another CPU.
 */
static void own_child(void)
{
	unsigned long round = 0, v;
	unsigned int c, k;
	int i;

	for (k = 0; k < ARRAY_SIZE(sizes); k++) {
		for (c = 0; c < ARRAY_SIZE(cases); c++) {
			const struct tcase *tc = &cases[c];
			int pages = sizes[k];

			if (!tc->own || lacks_swap(tc))
				continue;
			round++;
			old_base = make_base(0xc3c3, round);
			new_base = make_base(0x3c3c, round);
			if (tc->setup(pages))
				_exit(1);
			/* Load every translation on this CPU. */
			for (i = 0; i < pages; i++)
				if (!read_page(i, &v) || v != old_base + i)
					INC(child_count[2]);
			if (tc->change(pages))
				_exit(1);
			child_check(pages, old_base, new_base, tc->expect);
		}
	}
	_exit(0);
}

/*
 * One new process after the other, each pinned from its start to one CPU,
 * CPU 0 and the readers' CPUs in turn: the parent moves to that CPU to
 * fork it, so that the child never runs anywhere else.
 */
static void run_own(double seconds)
{
	unsigned long rounds = 0;
	double end = now() + seconds;
	int k = 0, cpu;
	pid_t pid;

	watchdog_arm("own_cpu", seconds);
	memset(child_count, 0, 3 * sizeof(*child_count));
	park_readers(true);
	do {
		cpu = k % (nr_readers + 1) ? reader_cpu[k % (nr_readers + 1) - 1] : 0;
		k++;
		pin(cpu);
		pid = fork();
		if (pid < 0)
			ksft_exit_fail_msg("fork: %s\n", strerror(errno));
		if (!pid)
			own_child();
		pin(0);
		wait_child(pid, "own_cpu");
		rounds++;
	} while (now() < end || k <= nr_readers);
	park_readers(false);

	report_children("own_cpu", rounds);
}

/* ---- throughput ------------------------------------------------------- */

struct perf_arg {
	int cpu, pages;
	unsigned long ops;
	char *mem;
};

static bool perf_stop;

/*
 * Give up on a measurement, in the process that makes it: the parent
 * reports it as failed and goes on.
 */
static __noreturn void perf_fail(const char *what)
{
	ksft_print_msg("perf: %s: %s\n", what, strerror(errno));
	_exit(KSFT_FAIL);
}

static void *madv_loop(void *p)
{
	struct perf_arg *a = p;
	int i;

	if (a->cpu >= 0)
		pin(a->cpu);
	while (!LOAD(perf_stop)) {
		for (i = 0; i < a->pages; i++)
			a->mem[i * page_size] = 1;
		madvise(a->mem, a->pages * page_size, MADV_DONTNEED);
		a->ops++;
	}
	return NULL;
}

static unsigned long perf_madv(int threads, int pages, double secs,
			       double *elapsed)
{
	struct perf_arg args[MAX_READERS + 1];
	pthread_t tid[MAX_READERS + 1];
	double t0 = now();
	unsigned long ops = 0;
	int t;

	STORE(perf_stop, false);
	for (t = 0; t < threads; t++) {
		args[t].cpu = threads > 1 ? (t ? reader_cpu[t - 1] : 0) : -1;
		args[t].pages = pages;
		args[t].ops = 0;
		args[t].mem = mmap(NULL, pages * page_size, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (args[t].mem == MAP_FAILED)
			perf_fail("mmap");
		errno = pthread_create(&tid[t], NULL, madv_loop, &args[t]);
		if (errno)
			perf_fail("pthread_create");
	}
	usleep(secs * 1e6);
	STORE(perf_stop, true);
	for (t = 0; t < threads; t++) {
		pthread_join(tid[t], NULL);
		ops += args[t].ops;
		munmap(args[t].mem, pages * page_size);
	}
	*elapsed = now() - t0;
	return ops;
}

static unsigned long perf_mprotect(double secs, double *elapsed)
{
	char *mem = mmap(NULL, 64 * page_size, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	double end = now() + secs, t0 = now();
	unsigned long ops = 0;
	int i;

	if (mem == MAP_FAILED)
		perf_fail("mmap");
	while (now() < end) {
		for (i = 0; i < 64; i++)
			mem[i * page_size] = 1;
		mprotect(mem, 64 * page_size, PROT_READ);
		mprotect(mem, 64 * page_size, PROT_READ | PROT_WRITE);
		ops++;
	}
	munmap(mem, 64 * page_size);
	*elapsed = now() - t0;
	return ops;
}

static unsigned long perf_fork(double secs, double *elapsed)
{
	double end = now() + secs, t0 = now();
	unsigned long ops = 0;
	pid_t pid;

	while (now() < end) {
		pid = fork();
		if (pid < 0)
			perf_fail("fork");
		if (!pid)
			_exit(0);
		waitpid(pid, NULL, 0);
		ops++;
	}
	*elapsed = now() - t0;
	return ops;
}

/*
 * Context switches: two processes, on CPU 0 and on the first reader CPU,
 * pass a byte back and forth through two pipes. Each round trip switches
 * each CPU to its process and back to idle, so this measures what a
 * kernel adds to switch_mm(), and nothing here flushes.
 */
static unsigned long perf_pingpong(double secs, double *elapsed)
{
	double end = now() + secs, t0 = now();
	int ping[2], pong[2], status;
	unsigned long ops = 0;
	char c = 0;
	pid_t pid;

	if (pipe(ping) || pipe(pong))
		perf_fail("pipe");
	pid = fork();
	if (pid < 0)
		perf_fail("fork");
	if (!pid) {
		pin(reader_cpu[0]);
		while (read(ping[0], &c, 1) == 1 && c)
			if (write(pong[1], &c, 1) != 1)
				_exit(1);
		_exit(0);
	}
	c = 1;
	while (now() < end) {
		if (write(ping[1], &c, 1) != 1 || read(pong[0], &c, 1) != 1)
			perf_fail("ping-pong");
		ops++;
	}
	c = 0;
	if (write(ping[1], &c, 1) != 1 || waitpid(pid, &status, 0) < 0)
		perf_fail("ping-pong");
	*elapsed = now() - t0;
	close(ping[0]);
	close(ping[1]);
	close(pong[0]);
	close(pong[1]);
	return ops;
}

enum perf_case { ST_MADV_1, ST_MADV_64, MT_MADV_1, MT_MADV_64, ST_MPROTECT_64,
		 FORK_EXIT, PIPE_PINGPONG, NR_PERF };

static const char *const perf_names[NR_PERF] = {
	"st_madv_1", "st_madv_64", "mt_madv_1", "mt_madv_64", "st_mprotect_64",
	"fork_exit", "pipe_pingpong",
};

static unsigned long perf_run(enum perf_case c, double secs, double *elapsed)
{
	switch (c) {
	case ST_MADV_1:
		return perf_madv(1, 1, secs, elapsed);
	case ST_MADV_64:
		return perf_madv(1, 64, secs, elapsed);
	case MT_MADV_1:
		return perf_madv(nr_readers + 1, 1, secs, elapsed);
	case MT_MADV_64:
		return perf_madv(nr_readers + 1, 64, secs, elapsed);
	case ST_MPROTECT_64:
		return perf_mprotect(secs, elapsed);
	case PIPE_PINGPONG:
		return perf_pingpong(secs, elapsed);
	default:
		return perf_fork(secs, elapsed);
	}
}

#define MAX_STATS	16

struct stats {
	int n;
	char name[MAX_STATS][32];
	unsigned long long val[MAX_STATS];
};

/* The flush counters, summed over CPUs; n = 0 without tlb_policy. */
static void read_stats(struct stats *st)
{
	FILE *f = fopen(STATS_FILE, "r");

	st->n = 0;
	if (!f)
		return;
	while (st->n < MAX_STATS &&
	       fscanf(f, "%31s %llu", st->name[st->n], &st->val[st->n]) == 2)
		st->n++;
	fclose(f);
}

/*
 * Measure in a new process, pinned to CPU 0 like this one, so that every
 * case starts with a new mm, as a benchmark started from a shell would.
 * With the counters, also print how many flushes of each kind the case
 * caused per 1000 operations (the other CPUs are idle meanwhile).
 *
 * The figures are only printed: how fast is fast enough depends on the
 * machine, so no threshold on them would mean anything. What a
 * measurement does test is that its workload, which makes the flushes
 * of a busy system (from several threads on several CPUs for mt_*),
 * runs: it passes if the process finished cleanly within the time
 * allowed and got some operations done, and fails otherwise, without
 * stopping the other measurements.
 */
static void perf_measure(enum perf_case c, double secs)
{
	struct perf_result {
		unsigned long ops;
		double elapsed;
	} *res = mmap(NULL, sizeof(*res), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	struct stats before, after;
	char line[512];
	int i, len;
	pid_t pid;

	if (res == MAP_FAILED)
		ksft_exit_fail_msg("mmap: %s\n", strerror(errno));
	watchdog_arm(perf_names[c], secs);
	read_stats(&before);
	pid = fork();
	if (pid < 0)
		ksft_exit_fail_msg("fork: %s\n", strerror(errno));
	if (!pid) {
		res->ops = perf_run(c, secs, &res->elapsed);
		_exit(0);
	}
	if (!wait_child_ok(pid, perf_names[c]) || !res->ops) {
		ksft_print_msg("perf %s: the measuring process failed or got nothing done\n",
			       perf_names[c]);
		ksft_test_result_fail("perf_%s\n", perf_names[c]);
		munmap(res, sizeof(*res));
		return;
	}
	read_stats(&after);
	ksft_print_msg("perf %s ops/s=%.0f\n", perf_names[c],
		       res->ops / res->elapsed);
	len = 0;
	for (i = 0; i < after.n && i < before.n; i++)
		len += snprintf(line + len, sizeof(line) - len, " %s=%.1f",
				after.name[i], 1000.0 *
				(after.val[i] - before.val[i]) / res->ops);
	if (len)
		ksft_print_msg("perf %s per_kop%s\n", perf_names[c], line);
	ksft_test_result_pass("perf_%s\n", perf_names[c]);
	munmap(res, sizeof(*res));
}

/*
 * Whether stats_on() turned the counters on, for put_back(); an int, as
 * riscv has no inline atomic exchange of a byte.
 */
static int stats_were_off;

/*
 * Whether the counters are counting. The stats file does not say, so
 * make a few flushes of a page of this process's own and see whether
 * any counter moves: while counting is off, none can.
 */
static bool stats_counting(void)
{
	char *p = mmap(NULL, page_size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct stats before, after;
	int i;

	if (p == MAP_FAILED)
		ksft_exit_fail_msg("mmap: %s\n", strerror(errno));
	read_stats(&before);
	for (i = 0; i < 16; i++) {
		*p = 1;
		madvise(p, page_size, MADV_DONTNEED);
	}
	munmap(p, page_size);
	read_stats(&after);
	for (i = 0; i < after.n && i < before.n; i++)
		if (after.val[i] != before.val[i])
			return true;
	return false;
}

/*
 * The counters count only once asked to. Turn them on for the
 * measurements, unless they count already; put_back() turns them off
 * again only if they were off.
 */
static void stats_on(void)
{
	if (access(STATS_FILE, F_OK) || stats_counting())
		return;
	/* Set first: a signal after the write must find it. */
	STORE(stats_were_off, 1);
	if (!write_file(STATS_FILE, "on")) {
		STORE(stats_were_off, 0);
		ksft_print_msg("cannot turn the counters on: %s\n",
			       strerror(errno));
	}
}

static void print_stats(void)
{
	char line[128];
	FILE *f = fopen(STATS_FILE, "r");

	if (!f) {
		ksft_print_msg("no %s\n", STATS_FILE);
		return;
	}
	while (fgets(line, sizeof(line), f))
		ksft_print_msg("stats %s", line);
	fclose(f);
}

/*
 * Put back what the test changed: the CPU that hotplug takes offline,
 * the max_ops that switch rewrites, and the counters, if stats_on()
 * turned them on. Async-signal-safe, so that on_signal() can call it;
 * run by the test process only, never by a child; each change is put
 * back once, by whichever caller claims it first.
 */
static void put_back(void)
{
	if (getpid() != main_pid)
		return;
	if (!churn_put_back())
		say("# cannot put back what the churning child changed\n");
	if (__atomic_exchange_n(&stats_were_off, 0, __ATOMIC_ACQ_REL) &&
	    !write_file(STATS_FILE, "off"))
		say("# cannot turn the counters off again\n");
}

static void put_back_at_exit(void)
{
	sigset_t old;

	block_put_back(true, &old);
	put_back();
	block_put_back(false, &old);
}

/*
 * SIGINT, SIGTERM and SIGHUP: put the system back, then die of the
 * signal (SA_RESETHAND made its action the default again). SIGALRM, the
 * watchdog: put it back and bail out. A child just dies.
 */
static void on_signal(int sig)
{
	if (getpid() == main_pid) {
		if (sig == SIGALRM)
			say(watchdog_msg);
		put_back();
		if (sig == SIGALRM)
			_exit(KSFT_FAIL);
		say("# interrupted; what the test changed is put back\n");
	}
	raise(sig);
}

/*
 * Handle put_back_sigs in the test process, except those it was started
 * with ignored (nohup), and put the system back on exit too. Only the
 * main thread takes these signals: the readers block them.
 */
static void catch_signals(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGALRM };
	struct sigaction sa = {
		.sa_handler = on_signal,
		.sa_flags = SA_RESETHAND,
	}, old;
	unsigned int i;

	main_pid = getpid();
	sigemptyset(&put_back_sigs);
	for (i = 0; i < ARRAY_SIZE(sigs); i++)
		sigaddset(&put_back_sigs, sigs[i]);
	sa.sa_mask = put_back_sigs;
	for (i = 0; i < ARRAY_SIZE(sigs); i++)
		if (sigaction(sigs[i], NULL, &old) ||
		    (old.sa_handler != SIG_IGN &&
		     sigaction(sigs[i], &sa, NULL)))
			ksft_exit_fail_msg("sigaction: %s\n", strerror(errno));
	if (atexit(put_back_at_exit))
		ksft_exit_fail_msg("atexit failed\n");
}

static void usage(const char *prog)
{
	fprintf(stderr,
		"Usage: %s [-d seconds] [-c case[,case...]] [-D] [-t | -a]\n"
		"  -d  seconds per case (default 2)\n"
		"  -c  coherence cases to run (default all):\n"
		"      madv_dontneed,mprotect,munmap,mmap_fixed,fork_cow,migrate,\n"
		"      pageout,lazy,hotplug,switch,cpu_hop,own_cpu\n"
		"  -D  destructive: also run hotplug (takes a CPU offline and\n"
		"      online) and switch (rewrites the TLB flush policy's max_ops\n"
		"      in debugfs); without -D they are skipped, even if named by -c\n"
		"  -t  measure throughput instead of coherence\n"
		"  -a  check coherence, then measure throughput\n", prog);
	exit(KSFT_FAIL);
}

int main(int argc, char **argv)
{
	const int nr_cases = ARRAY_SIZE(cases);
	const char *only = NULL;
	pthread_t tid[MAX_READERS];
	bool perf = false, coherence = true;
	double secs = 2;
	sigset_t old_mask;
	cpu_set_t online;
	int opt, i, cpu, planned = 0;

	while ((opt = getopt(argc, argv, "d:c:Dtah")) != -1) {
		switch (opt) {
		case 'd':
			secs = atof(optarg);
			if (secs <= 0)
				usage(argv[0]);
			break;
		case 'c':
			only = optarg;
			break;
		case 'D':
			allow_destructive = true;
			break;
		case 't':
			perf = true;
			coherence = false;
			break;
		case 'a':
			perf = true;
			coherence = true;
			break;
		default:
			usage(argv[0]);
		}
	}
	page_size = sysconf(_SC_PAGESIZE);
	case_secs = secs;

	ksft_print_header();
	catch_signals();
	if (perf)
		stats_on();
	if (sched_getaffinity(0, sizeof(online), &online))
		ksft_exit_fail_msg("sched_getaffinity: %s\n", strerror(errno));
	for (cpu = 0; cpu < CPU_SETSIZE && nr_readers < MAX_READERS; cpu++)
		if (CPU_ISSET(cpu, &online) && cpu != 0)
			reader_cpu[nr_readers++] = cpu;
	if (!CPU_ISSET(0, &online) || !nr_readers)
		ksft_exit_skip("needs CPU 0 and at least one other CPU\n");
	ksft_print_msg("cpus=%d readers=%d page_size=%ld\n", nr_readers + 1,
		       nr_readers, page_size);
	pin(0);

	for (i = 0; i < nr_cases && coherence; i++)
		planned += !only || strstr(only, cases[i].name);
	planned += coherence && (!only || strstr(only, "cpu_hop"));
	planned += coherence && (!only || strstr(only, "own_cpu"));
	ksft_set_plan(planned + (perf ? NR_PERF : 0));

	if (coherence) {
		struct sigaction sa = {
			.sa_handler = segv_handler,
			.sa_flags = SA_NODEFER,
		};

		if (sigaction(SIGSEGV, &sa, NULL) || sigaction(SIGBUS, &sa, NULL))
			ksft_exit_fail_msg("sigaction: %s\n", strerror(errno));
		region = mmap(NULL, MAX_PAGES * page_size, PROT_NONE,
			      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		child_count = mmap(NULL, page_size, PROT_READ | PROT_WRITE,
				   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		churned = child_count == MAP_FAILED ? NULL : child_count + 8;
		memfd = memfd_create("tlb_coherence", 0);
		have_swap = swap_on();
		if (region == MAP_FAILED || child_count == MAP_FAILED ||
		    memfd < 0 ||
		    ftruncate(memfd, 2 * MAX_PAGES * page_size))
			ksft_exit_fail_msg("setup: %s\n", strerror(errno));
		/* The readers inherit the mask: only this thread puts back. */
		block_put_back(true, &old_mask);
		for (i = 0; i < nr_readers; i++)
			if (pthread_create(&tid[i], NULL, reader,
					   (void *)(long)i))
				ksft_exit_fail_msg("pthread_create failed\n");
		block_put_back(false, &old_mask);

		for (i = 0; i < nr_cases; i++)
			if (!only || strstr(only, cases[i].name))
				run_case(&cases[i], secs);
		if (!only || strstr(only, "cpu_hop"))
			run_hop(secs);
		if (!only || strstr(only, "own_cpu"))
			run_own(secs);

		STORE(stop, true);
		for (i = 0; i < nr_readers; i++)
			pthread_join(tid[i], NULL);
	}

	for (i = 0; i < NR_PERF && perf; i++)
		perf_measure(i, secs);
	alarm(0);
	if (perf)
		print_stats();
	ksft_finished();
}
