package dev.idempotency.autoconfigure;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Keeps the version a user reads in step everywhere (issue 32, item 5): the project version in the root
 * {@code pom.xml}, the newest {@code CHANGELOG.md} section, the README's status heading, and every
 * {@code @since} tag and {@code @Deprecated(since = ...)} in the main sources of every module. A snapshot
 * version is "unreleased" in the CHANGELOG and the README; {@code scripts/release.sh} turns both into a
 * dated release.
 */
class ReleaseConsistencyTests {

	/** Relative to the module directory, which is the working directory under Surefire. */
	private static final Path ROOT = Path.of("..");

	private static final Pattern PROJECT_VERSION = Pattern
		.compile("<artifactId>idempotency-spring-boot-parent</artifactId>\\s*<version>([^<]+)</version>");

	private static final Pattern CHANGELOG_SECTION = Pattern.compile("(?m)^## (\\d+\\.\\d+\\.\\d+)(?: \\(([^)]*)\\))?$");

	private static final Pattern README_STATUS = Pattern.compile("(?m)^## Status \\(([^)]*)\\)$");

	private static final Pattern SINCE = Pattern
		.compile("@since (\\S+)|@Deprecated\\(since = \"([^\"]+)\"");

	private static final Pattern DOCUMENTED_DEPENDENCY = Pattern
		.compile("<artifactId>idempotency-spring-boot-[a-z-]+</artifactId>\\s*<version>([^<]+)</version>");

	private static final Pattern RELEASE_DATE = Pattern.compile("\\d{4}-\\d{2}-\\d{2}");

	@Test
	void theChangelogsNewestSectionIsTheProjectVersion() throws IOException {
		String version = projectVersion();
		Matcher newest = CHANGELOG_SECTION.matcher(read("CHANGELOG.md"));
		assertThat(newest.find()).as("CHANGELOG.md has a '## x.y.z' section").isTrue();
		assertThat(newest.group(1)).as("CHANGELOG.md's newest section").isEqualTo(releaseOf(version));
		if (isSnapshot(version)) {
			assertThat(newest.group(2)).as("a snapshot's CHANGELOG section").isEqualTo("unreleased");
		}
		else {
			assertThat(newest.group(2)).as("a release's CHANGELOG section carries its date").matches(RELEASE_DATE);
		}
	}

	@Test
	void theReadmeStatusNamesTheProjectVersion() throws IOException {
		String version = projectVersion();
		Matcher status = README_STATUS.matcher(read("README.md"));
		assertThat(status.find()).as("README.md has a '## Status (...)' heading").isTrue();
		String expected = isSnapshot(version) ? releaseOf(version) + ", unreleased" : releaseOf(version);
		assertThat(status.group(1)).isEqualTo(expected);
	}

	@Test
	void theDependencySnippetsInTheDocsNameTheProjectVersion() throws IOException {
		String version = projectVersion();
		List<String> wrong = new ArrayList<>();
		for (Path page : pages()) {
			Matcher snippet = DOCUMENTED_DEPENDENCY.matcher(Files.readString(page, StandardCharsets.UTF_8));
			while (snippet.find()) {
				if (!snippet.group(1).equals(version)) {
					wrong.add(ROOT.relativize(page) + ": " + snippet.group(1));
				}
			}
		}
		assertThat(wrong).as("dependency snippets of this project that name another version").isEmpty();
	}

	@Test
	void everySinceTagNamesAVersionInTheChangelogUpToTheProjectVersion() throws IOException {
		List<String> wrong = sinceTagsAfter(releaseOf(projectVersion()), changelogVersions(read("CHANGELOG.md")),
				mainSources());
		assertThat(wrong).as("@since tags naming a version the CHANGELOG does not have, or a later one").isEmpty();
	}

	@Test
	void aSinceTagFromTheFutureIsCaught() {
		Set<String> released = Set.of("0.1.0", "0.2.0");
		assertThat(sinceTags("/** @since 0.2.0 */", "0.2.0", released)).isEmpty();
		assertThat(sinceTags("/** @since 0.3.0 */", "0.2.0", released)).containsExactly("0.3.0");
		assertThat(sinceTags("@Deprecated(since = \"0.1.5\", forRemoval = true)", "0.2.0", released))
			.containsExactly("0.1.5");
	}

	private static List<String> sinceTagsAfter(String current, Set<String> released, List<Path> sources)
			throws IOException {
		List<String> wrong = new ArrayList<>();
		for (Path source : sources) {
			for (String version : sinceTags(Files.readString(source, StandardCharsets.UTF_8), current, released)) {
				wrong.add(ROOT.relativize(source) + ": " + version);
			}
		}
		return wrong;
	}

	/** The versions a source names that are not in the CHANGELOG or come after {@code current}. */
	private static List<String> sinceTags(String source, String current, Set<String> released) {
		List<String> wrong = new ArrayList<>();
		Matcher since = SINCE.matcher(source);
		while (since.find()) {
			String version = (since.group(1) != null) ? since.group(1) : since.group(2);
			if (!released.contains(version) || compare(version, current) > 0) {
				wrong.add(version);
			}
		}
		return wrong;
	}

	private static Set<String> changelogVersions(String changelog) {
		Set<String> versions = new LinkedHashSet<>();
		Matcher section = CHANGELOG_SECTION.matcher(changelog);
		while (section.find()) {
			versions.add(section.group(1));
		}
		return versions;
	}

	private static List<Path> pages() throws IOException {
		List<Path> pages = new ArrayList<>(List.of(ROOT.resolve("README.md"), ROOT.resolve("sample-app/README.md")));
		try (Stream<Path> docs = Files.walk(ROOT.resolve("docs"))) {
			docs.filter((path) -> path.toString().endsWith(".md")).sorted().forEach(pages::add);
		}
		return pages;
	}

	private static List<Path> mainSources() throws IOException {
		try (Stream<Path> files = Files.walk(ROOT)) {
			return files.filter((path) -> path.toString().endsWith(".java"))
				.filter((path) -> path.toString().contains("/src/main/java/"))
				.filter((path) -> !path.toString().contains("/target/"))
				.toList();
		}
	}

	private static String projectVersion() throws IOException {
		Matcher version = PROJECT_VERSION.matcher(read("pom.xml"));
		assertThat(version.find()).as("the root pom's version").isTrue();
		return version.group(1);
	}

	private static boolean isSnapshot(String version) {
		return version.endsWith("-SNAPSHOT");
	}

	private static String releaseOf(String version) {
		return version.replace("-SNAPSHOT", "");
	}

	private static int compare(String left, String right) {
		String[] a = left.split("\\.");
		String[] b = right.split("\\.");
		for (int i = 0; i < Math.max(a.length, b.length); i++) {
			int difference = Integer.compare(part(a, i), part(b, i));
			if (difference != 0) {
				return difference;
			}
		}
		return 0;
	}

	private static int part(String[] parts, int index) {
		return (index < parts.length) ? Integer.parseInt(parts[index].replaceAll("\\D.*", "")) : 0;
	}

	private static String read(String file) throws IOException {
		return Files.readString(ROOT.resolve(file), StandardCharsets.UTF_8);
	}

}
