#!/usr/bin/env bash
# Cuts a release: turns the snapshot version into a real one, dates its CHANGELOG section and the README's
# status heading, runs the test command, commits and tags v<version>, then opens the next snapshot.
#
#   scripts/release.sh 0.2.0 0.3.0          release 0.2.0, then continue on 0.3.0-SNAPSHOT
#   scripts/release.sh --dry-run 0.2.0 0.3.0  edit the files only: no tests, no commit, no tag
#
# It publishes nothing: deploying the tagged commit to a repository is the publisher's step. What it
# keeps in step is what ReleaseConsistencyTests checks: the poms' version, CHANGELOG.md's newest section,
# the README's "## Status (...)" heading and the dependency snippets in README.md and docs/.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

dry_run=false
if [[ "${1:-}" == --dry-run ]]; then
	dry_run=true
	shift
fi
if [[ $# -ne 2 ]]; then
	echo "usage: scripts/release.sh [--dry-run] <release version, e.g. 0.2.0> <next version, e.g. 0.3.0>" >&2
	exit 2
fi
release=$1
next=$2
for version in "$release" "$next"; do
	if [[ ! "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]]; then
		echo "release.sh: '$version' is not a version of the form x.y.z" >&2
		exit 2
	fi
done

current=$(grep -A1 '<artifactId>idempotency-spring-boot-parent</artifactId>' pom.xml \
	| sed -n 's:.*<version>\(.*\)</version>.*:\1:p' | head -1)
if [[ "$current" != "$release-SNAPSHOT" ]]; then
	echo "release.sh: the project version is $current, not $release-SNAPSHOT; release the version being developed" >&2
	exit 1
fi
if ! grep -q "^## $release (unreleased)$" CHANGELOG.md; then
	echo "release.sh: CHANGELOG.md has no '## $release (unreleased)' section to release" >&2
	exit 1
fi
if ! $dry_run && [[ -n "$(git status --porcelain)" ]]; then
	echo "release.sh: the working tree has uncommitted changes; commit or stash them first" >&2
	exit 1
fi

# Replaces the project's version in every pom (the parent's own and each module's parent block) and in
# the documented dependency snippets: only a <version> right after one of this project's artifactIds.
set_version() {
	local files
	files=$(git ls-files 'pom.xml' '*/pom.xml' 'README.md' 'docs/*.md')
	# shellcheck disable=SC2086
	FROM=$1 TO=$2 perl -0pi -e \
		's{(<artifactId>idempotency-spring-boot[a-z-]*</artifactId>\s*<version>)\Q$ENV{FROM}\E(</version>)}{$1$ENV{TO}$2}g' \
		$files
}

today=$(date -u +%Y-%m-%d)
set_version "$release-SNAPSHOT" "$release"
sed -i "s:^## $release (unreleased)$:## $release ($today):" CHANGELOG.md
sed -i "s:^## Status ($release, unreleased)$:## Status ($release):" README.md
if $dry_run; then
	echo "release.sh: files edited for $release (dry run: no tests, no commit, no tag)"
	exit 0
fi

./scripts/test.sh
git commit -q -am "Release $release"
git tag -a "v$release" -m "Release $release"

set_version "$release" "$next-SNAPSHOT"
sed -i "0,/^## $release ($today)$/s::## $next (unreleased)\n\n## $release ($today):" CHANGELOG.md
sed -i "s:^## Status ($release):## Status ($next, unreleased):" README.md
git commit -q -am "Open $next-SNAPSHOT"
echo "release.sh: tagged v$release; main is now $next-SNAPSHOT. Push with: git push --follow-tags"
