package dev.idempotency.architecture;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * No main class names a class in a string: a class known only by its name escapes the compiler and
 * {@link ArchitectureTests} (which sees class references, never string constants), so a wall can be
 * crossed and a renamed class missed without any test noticing. Transports and stores contribute
 * {@code Class} objects through the SPIs instead. The one exception is the attributes of
 * auto-configuration annotations that Spring Boot reads without loading the class
 * ({@code @ConditionalOnClass(name = ...)}, {@code @AutoConfiguration(afterName = ...)}).
 */
class ClassNamesAsStringsTests {

	private static final Path MAIN_SOURCES = Path.of("src", "main", "java");

	/** A fully-qualified class name (a package of at least two segments, then a capitalised name). */
	private static final Pattern CLASS_NAME = Pattern
		.compile("\\b(java|javax|jakarta|org|com|io|redis|dev|tools)\\.[a-z0-9_.]+\\.[A-Z]\\w*");

	/** Annotations whose string attributes name classes that Spring Boot reads without loading them. */
	private static final Pattern ALLOWED_ANNOTATION = Pattern.compile(
			"@(ConditionalOnClass|ConditionalOnMissingClass|AutoConfiguration|AutoConfigureAfter|AutoConfigureBefore)"
					+ "\\s*\\(");

	@Test
	void mainSourcesNameNoClassInAString() throws IOException {
		assertThat(MAIN_SOURCES).as("main sources (the test runs in the module's directory)").isDirectory();
		List<String> found = new ArrayList<>();
		int files;
		try (Stream<Path> paths = Files.walk(MAIN_SOURCES)) {
			List<Path> sources = paths.filter((path) -> path.toString().endsWith(".java")).sorted().toList();
			files = sources.size();
			for (Path source : sources) {
				found.addAll(classNamesIn(source));
			}
		}
		assertThat(files).as("main source files").isGreaterThan(100);
		assertThat(found).as("class names written as strings in main sources; reference the class, or contribute "
				+ "it through MessageTransport / InfrastructureFailureTypes from the technology's auto-configuration")
			.isEmpty();
	}

	@Test
	void scannerFindsANameInCodeButNotInCommentsOrAllowedAnnotations() {
		String source = """
				// "org.example.core.InComment"
				/* "org.example.core.InBlockComment" */
				@ConditionalOnClass(name = "org.example.core.Allowed")
				@AutoConfiguration(afterName = { "org.example.core.AllowedToo",
						"org.example.core.AllowedOnTheNextLine" })
				class Example {
					char quote = '"';
					String name = "org.example.core.Forbidden";
					String nested = "io.example.Outer$Inner";
					String path = "META-INF/spring/org.example.core.Resource.imports";
					String message = "no class here: org.example";
				}
				""";
		assertThat(classNamesIn("Example.java", source)).containsExactly(
				"Example.java:8: \"org.example.core.Forbidden\"", "Example.java:9: \"io.example.Outer$Inner\"",
				"Example.java:10: \"META-INF/spring/org.example.core.Resource.imports\"");
	}

	private static List<String> classNamesIn(Path source) {
		try {
			return classNamesIn(source.toString(), Files.readString(source, StandardCharsets.UTF_8));
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static List<String> classNamesIn(String file, String source) {
		JavaText text = JavaText.parse(source);
		List<int[]> allowed = allowedRanges(text.code());
		List<String> found = new ArrayList<>();
		for (JavaText.Literal literal : text.literals()) {
			boolean inAllowedAnnotation = allowed.stream()
				.anyMatch((range) -> literal.offset() > range[0] && literal.offset() < range[1]);
			if (!inAllowedAnnotation && CLASS_NAME.matcher(literal.value()).find()) {
				found.add(file + ":" + text.lineOf(literal.offset()) + ": \"" + literal.value() + "\"");
			}
		}
		return found;
	}

	/** The parenthesised attributes of each allowed annotation, in code whose literals and comments are blanked. */
	private static List<int[]> allowedRanges(String code) {
		List<int[]> ranges = new ArrayList<>();
		Matcher annotation = ALLOWED_ANNOTATION.matcher(code);
		while (annotation.find()) {
			int depth = 1;
			int end = annotation.end();
			while (end < code.length() && depth > 0) {
				char c = code.charAt(end++);
				depth += (c == '(') ? 1 : (c == ')') ? -1 : 0;
			}
			ranges.add(new int[] { annotation.end() - 1, end });
		}
		return ranges;
	}

	/**
	 * Java source split into its string literals and the code around them, with comments and
	 * literals blanked (offsets kept), so that neither a commented-out name nor a parenthesis inside
	 * a string misleads the annotation matching.
	 */
	private record JavaText(String source, String code, List<Literal> literals) {

		static JavaText parse(String source) {
			StringBuilder code = new StringBuilder(source);
			List<Literal> literals = new ArrayList<>();
			int i = 0;
			while (i < source.length()) {
				char c = source.charAt(i);
				if (source.startsWith("//", i)) {
					i = blank(code, i, endOfLine(source, i));
				}
				else if (source.startsWith("/*", i)) {
					int end = source.indexOf("*/", i + 2);
					i = blank(code, i, (end < 0) ? source.length() : end + 2);
				}
				else if (source.startsWith("\"\"\"", i)) {
					int end = source.indexOf("\"\"\"", i + 3);
					end = (end < 0) ? source.length() : end;
					literals.add(new Literal(i, source.substring(i + 3, end)));
					i = blank(code, i, Math.min(source.length(), end + 3));
				}
				else if (c == '"' || c == '\'') {
					int end = endOfQuoted(source, i, c);
					if (c == '"') {
						literals.add(new Literal(i, source.substring(i + 1, end - 1)));
					}
					i = blank(code, i, end);
				}
				else {
					i++;
				}
			}
			return new JavaText(source, code.toString(), literals);
		}

		int lineOf(int offset) {
			int line = 1;
			for (int i = 0; i < offset; i++) {
				if (this.source.charAt(i) == '\n') {
					line++;
				}
			}
			return line;
		}

		private static int endOfLine(String source, int from) {
			int end = source.indexOf('\n', from);
			return (end < 0) ? source.length() : end;
		}

		/** The offset after the closing quote, skipping escaped characters. */
		private static int endOfQuoted(String source, int start, char quote) {
			int i = start + 1;
			while (i < source.length() && source.charAt(i) != quote && source.charAt(i) != '\n') {
				i += (source.charAt(i) == '\\') ? 2 : 1;
			}
			return Math.min(source.length(), i + 1);
		}

		/** Blanks {@code [from, to)} except line breaks, so that offsets and line numbers stay. */
		private static int blank(StringBuilder code, int from, int to) {
			for (int i = from; i < to; i++) {
				if (code.charAt(i) != '\n') {
					code.setCharAt(i, ' ');
				}
			}
			return to;
		}

		record Literal(int offset, String value) {
		}

	}

}
