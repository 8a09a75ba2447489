# SPDX-License-Identifier: GPL-2.0
# Shared settings for the tools/series scripts. Sourced, never run.
#
# Everything that names the project (author identity, branch names, cache
# layout) is set here and only here.

set -euo pipefail

# Debian's tools first: scripts/spdxcheck.py, called by checkpatch, needs
# Debian's python3 with python3-ply and python3-git, not another python3
# that may come earlier in PATH.
export PATH=/usr/bin:/bin:$PATH

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
TLBP_CACHE=${TLBP_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tlb-policy}
# The base tree comes from a tarball (TLBP_TARBALL=, kernel.org style,
# with or without a top-level directory) or from a user's git tree
# (KSRC=). On our machines the default is the shared 7.1.5 tarball.
SHARED_LINUX=$(cd "$TOP/.." && pwd)/shared/linux
DEFAULT_TARBALL=$SHARED_LINUX/linux-7.1.5.tar.xz
# herd7, the memory-model simulator of herdtools7, built from the source
# in ../shared/tools (tools/series/proofs/herd-build) for tools/series/proofs/litmus-check.
SHARED_TOOLS=$(cd "$TOP/.." && pwd)/shared/tools
HERD_VERSION=7.57
HERD_DIR=$TLBP_CACHE/herd7

# The kernel tree: one base commit plus the work branch.
KBASE=$TLBP_CACHE/linux
BASE_TAG=tlbp-base
WORK_BRANCH=tlb-policy
LOGDIR=$TLBP_CACHE/logs

# The one author identity of the series. The address is a placeholder
# that a submitter replaces (README.md, "Sending the series").
TLBP_NAME="tlb-policy developers"
TLBP_EMAIL="tlb-policy@example.org"
TLBP_IDENT="$TLBP_NAME <$TLBP_EMAIL>"

# Fixed identity and date for the base commit, so that the same tarball
# always yields the same commit id.
BASE_DATE="2000-01-01T00:00:00+0000"

# Paths the series may add files under; these are copied in-tree.
COPY_DIRS="mm include arch Documentation tools/testing"

# Debian packages every workflow needs (DEVELOPERS.md).
PACKAGES="gcc-aarch64-linux-gnu gcc-riscv64-linux-gnu
libc6-dev-arm64-cross libc6-dev-riscv64-cross qemu-system-arm
qemu-system-misc qemu-system-x86 sparse b4 quilt flex bison bc libelf-dev
libssl-dev libglib2.0-dev cpio ccache python3 python3-ply python3-git gcc make git xz-utils
curl ocaml-nox ocaml-dune menhir libmenhir-ocaml-dev libzarith-ocaml-dev"

mkdir -p "$LOGDIR"

# ccache keeps rebuilds of the same sources cheap, across trees too.
export CCACHE_DIR=${CCACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/ccache}
export CCACHE_BASEDIR=$TLBP_CACHE

say() { printf '%s\n' "$*"; }
step() { printf '==> %s\n' "$*"; }
die() {
	printf 'error: %s\n' "$*" >&2
	exit 1
}

# Run a command with output going to a log file; on failure show its tail.
logrun() {
	local log=$1
	shift
	if ! "$@" >"$log" 2>&1; then
		printf 'error: "%s" failed; last lines of %s:\n' "$*" "$log" >&2
		tail -n 20 "$log" >&2
		return 1
	fi
}

# git in the cache tree, with the project identity.
kgit() {
	GIT_AUTHOR_NAME=$TLBP_NAME GIT_AUTHOR_EMAIL=$TLBP_EMAIL \
	GIT_COMMITTER_NAME=$TLBP_NAME GIT_COMMITTER_EMAIL=$TLBP_EMAIL \
		git -C "$KBASE" "$@"
}

# The UML build directory of kernel tree $1. tools/series/series/kunit, bisect
# and warnings share the one of the check worktree, so that its objects
# are compiled once.
uml_out() { echo "$TLBP_CACHE/build/kunit-$(basename "$1")"; }

# The UML .config fragment of kernel tree $1 for the kunitconfig text $2,
# as kunit.py writes it: its arch_uml.config, then the kunitconfig. A
# build directory configured from it is one kunit.py keeps.
uml_kconfig() {
	cat "$1/tools/testing/kunit/configs/arch_uml.config" 2>/dev/null || true
	printf '%s\n' "$2"
}

need_base() {
	git -C "$KBASE" rev-parse -q --verify "refs/tags/$BASE_TAG" >/dev/null 2>&1 ||
		die "no base tree in $KBASE; run 'make setup' first"
}

# Patch file names from the series file, in order, without comments.
series_patches() {
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$TOP/series"
}

# Fill the array "patches" with the paths of the patches in series, and
# fail if there are none or one is missing.
load_patches() {
	[ -f "$TOP/series" ] || die "no series file in $TOP; run 'make export'"
	mapfile -t patches < <(series_patches | sed "s|^|$TOP/patches/|")
	[ "${#patches[@]}" -gt 0 ] || die "series lists no patches"
	local p
	for p in "${patches[@]}"; do
		[ -f "$p" ] || die "series names $p, which does not exist; run 'make export'"
	done
}

# The cross-compiler prefix of arch $1: the one arch-to-prefix table of
# tools/series (x86_64 builds with the host's gcc).
cross_of() {
	case $1 in
	arm64) echo aarch64-linux-gnu- ;;
	riscv) echo riscv64-linux-gnu- ;;
	x86_64 | um) echo "" ;;
	*) die "unknown arch '$1': use arm64, riscv or x86_64" ;;
	esac
}

# The source directory under arch/ of arch $1 (x86_64: x86; um: um).
srcarch() {
	case $1 in
	x86_64) echo x86 ;;
	*) echo "$1" ;;
	esac
}

# Is file $2 part of a kernel build, and one that arch $1 (its source
# directory) sees: generic, or under arch/$1? With $1 empty, any arch.
sees() {
	case $2 in
	tools/* | scripts/* | Documentation/* | samples/*) return 1 ;;
	arch/*) [ -z "$1" ] || [[ $2 == arch/"$1"/* ]] ;;
	esac
}

# The parts of the series (the file parts; README.md, "Sending one
# part"), as tools/series/series/export writes them into series: a line
# "# part NAME: TREE; needs: A B" (or "needs: -") before each part's
# first patch. load_parts fills PARTS (the names, in order) and the maps
# PART_TREE, PART_NEEDS (space-separated) and PART_FILES (the paths of
# its patches, in order, space-separated).
load_parts() {
	local line name='' re='^# part ([a-z0-9-]+): ([^;]+); needs: (.*)$'
	PARTS=()
	declare -gA PART_TREE=() PART_NEEDS=() PART_FILES=()
	[ -f "$TOP/series" ] || die "no series file in $TOP; run 'make export'"
	while IFS= read -r line; do
		if [[ $line =~ $re ]]; then
			name=${BASH_REMATCH[1]}
			PARTS+=("$name")
			PART_TREE[$name]=${BASH_REMATCH[2]}
			PART_NEEDS[$name]=${BASH_REMATCH[3]#-}
			PART_FILES[$name]=
		elif [[ $line == '# part '* ]]; then
			die "series: malformed part line '$line'; run 'make export'"
		elif [[ $line =~ ^[^#[:space:]] ]]; then
			[ -n "$name" ] || die "series: $line comes before any '# part' line; run 'make export'"
			PART_FILES[$name]+="$TOP/patches/$line "
		fi
	done <"$TOP/series"
	[ "${#PARTS[@]}" -gt 0 ] || die "series names no parts; run 'make export'"
}

# part_closure NAME: the parts that part NAME needs, directly or through
# another part, one per line in series order (NAME itself not included).
# Needs load_parts.
part_closure() {
	local -A want=()
	local -a todo more
	local p
	[ -n "${PART_TREE[$1]+x}" ] || die "no part '$1' in series; the parts are: ${PARTS[*]}"
	read -ra todo <<<"${PART_NEEDS[$1]}"
	while [ "${#todo[@]}" -gt 0 ]; do
		p=${todo[0]}
		todo=("${todo[@]:1}")
		[ -n "${PART_TREE[$p]+x}" ] || die "part $1 needs '$p', which series does not name"
		[ -z "${want[$p]:-}" ] || continue
		want[$p]=1
		read -ra more <<<"${PART_NEEDS[$p]}"
		todo+=("${more[@]}")
	done
	for p in "${PARTS[@]}"; do
		[ -z "${want[$p]:-}" ] || echo "$p"
	done
}

# parts_patches NAME...: the patch files of the parts NAME..., one per
# line, in order. Needs load_parts.
parts_patches() {
	local q
	for q in "$@"; do
		printf '%s\n' ${PART_FILES[$q]}
	done
}

# reset_worktree DIR REV: DIR back at REV, detached, with no git am in
# progress and nothing untracked.
reset_worktree() {
	git -C "$1" am --abort >/dev/null 2>&1 || true
	git -C "$1" checkout -q -f --detach "$2"
	git -C "$1" clean -q -fdx
}

# same_config_inputs TREE A B: do commits A and B of TREE have the same
# Kconfig files, scripts/ and top-level Makefile, the inputs that decide
# what a configuration from the same fragment gives?
same_config_inputs() {
	local kc
	kc=$(git -C "$1" diff --no-renames --name-only "$2" "$3" 2>/dev/null) &&
		! grep -qE '(^|/)Kconfig[^/]*$|^scripts/|^Makefile$' <<<"$kc"
}

# Make DIR a detached git worktree of the base tree, at REV, if it is not
# one already.
ensure_worktree() {
	local dir=$1 rev=$2
	[ -e "$dir/.git" ] && return 0
	rm -rf "$dir"
	git -C "$KBASE" worktree prune
	git -C "$KBASE" worktree add -q --detach "$dir" "$rev"
}

# Identifies the series as committed: changes when any patch changes.
series_stamp() {
	load_patches
	cat "$TOP/series" "${patches[@]}" | sha256sum | cut -c1-16
}

# The stamp of worktree WT holding the series: the series' stamp and the
# commit git am gave, so that a tree moved to another commit (by
# tools/series/series/bisect) is not taken for the series. stamp_file WT
# prints its path; write_stamp WT records WT as holding the series.
stamp_file() {
	echo "$(git -C "$1" rev-parse --absolute-git-dir)/tlbp-stamp"
}
stamp_of() {
	echo "$(series_stamp) $(git -C "$1" rev-parse HEAD)"
}
write_stamp() {
	stamp_of "$1" >"$(stamp_file "$1")"
}
has_stamp() {
	[ "$(cat "$(stamp_file "$1")" 2>/dev/null)" = "$(stamp_of "$1")" ]
}

# tools/series/series/bisect moves the check worktree WT through the series;
# nothing else may reset it meanwhile. bisect_lock WT takes it for this
# shell (bisect frees it on exit); refuse_if_bisecting WT dies while a
# live bisect holds it.
bisect_lockfile() {
	echo "$(git -C "$1" rev-parse --absolute-git-dir)/tlbp-bisect"
}
refuse_if_bisecting() {
	local pid
	pid=$(cat "$(bisect_lockfile "$1")" 2>/dev/null) || return 0
	[ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 0
	die "tools/series/series/bisect (pid $pid) is building $1 patch by patch; wait for it to finish, or kill it, first"
}
bisect_lock() {
	refuse_if_bisecting "$1"
	echo $$ >"$(bisect_lockfile "$1")"
}

# The Debian mirror apt is configured with (TLBP_DEBIAN_MIRROR overrides):
# the archive of its package lists, or, with no lists yet, the first
# non-security Debian source of its sources files. Empty when none.
debian_mirror() {
	local m=${TLBP_DEBIAN_MIRROR:-}
	[ -n "$m" ] || m=$(apt-get indextargets --format '$(REPO_URI)' \
		'Label: Debian' 'Component: main' 2>/dev/null | sort -u | head -n 1 || true)
	[ -n "$m" ] || m=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
		/etc/apt/sources.list.d/*.sources 2>/dev/null |
		sed -n -e 's/^deb[[:space:]]\+\(\[[^]]*\][[:space:]]\+\)\?\([^[:space:]]*\).*/\2/p' \
			-e 's/^URIs:[[:space:]]*\([^[:space:]]*\).*/\1/p' |
		grep -v -e security -e '^#' | grep '/debian/\?$' | head -n 1 || true)
	printf '%s\n' "$m"
}

usage_if_help() {
	case "${1:-}" in
	-h | --help)
		sed -n '2,/^$/{s/^# \{0,1\}//;p}' "$0"
		exit 0
		;;
	esac
}

# oracle_plugin_arg ARCH NAME OUT: the QEMU argument that loads the oracle
# (tools/series/oracle/oracle) for guest NAME of ARCH, writing its findings to
# OUT. The boot must run QEMU 10 (TLBP_QEMU10=1).
oracle_plugin_arg() {
	local so
	so=$("$TOP/tools/series/oracle/oracle" --plugin) || return 1
	echo "-plugin $so,arch=$1,outfile=$3,map=$TLBP_CACHE/build/guest-$1-$2/System.map"
}

# qemu10_restarted_cpu LOG: true when the console LOG shows the QEMU 10
# fault of tools/series/guests/guests.md: a STARTUP IPI applied to an
# x86_64 vCPU already running in start_secondary(), which then fetches
# address 0 with CS = the IPI's vector << 8. Not the kernel's doing.
qemu10_restarted_cpu() {
	grep -q 'RIP: [0-9a-f]*00:0x0[[:space:]]*$' "$1" &&
		grep -q '^ start_secondary+' "$1"
}

# row_expect ARCH WARNS POLICY TEXT: set the array "expect" to the
# guest-report options that check one row of tools/series/guests/guest-cases.
# Every arch must print the policy line on every boot.
row_expect() {
	local w
	expect=()
	expect+=(--require-policy)
	for w in $2; do expect+=(--expect-warn "$w"); done
	for w in $3; do expect+=(--expect-policy "$w"); done
	[ -z "$4" ] || expect+=(--expect-line "$4")
}
