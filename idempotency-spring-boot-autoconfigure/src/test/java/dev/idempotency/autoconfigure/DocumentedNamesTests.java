package dev.idempotency.autoconfigure;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import com.jayway.jsonpath.JsonPath;
import org.junit.jupiter.api.Test;

import dev.idempotency.kafka.share.metrics.KafkaShareMeters;
import dev.idempotency.metrics.IdempotencyMeters;
import dev.idempotency.outbox.metrics.OutboxMeters;
import dev.idempotency.observation.DefaultIdempotencyObservationConvention;
import dev.idempotency.observation.IdempotencyObservationDocumentation;
import dev.idempotency.redis.stream.metrics.RedisStreamMeters;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Catches pages that drift from the code: every {@code idempotency.*} name quoted in the README or
 * under {@code docs/} (as {@code `name`} or {@code `name=value`}) must be a property, a property group,
 * a meter, the observation or one of its tags, or one of the test suite's own system properties
 * ({@code idempotency.test.*}, read by the test support classes). {@link ConfigurationReferenceTests} keeps the configuration reference itself
 * complete; this test covers the prose of every other page.
 */
class DocumentedNamesTests {

	/** Relative to the module directory, which is the working directory under Surefire. */
	private static final Path METADATA = Path.of("target/classes/META-INF/spring-configuration-metadata.json");

	private static final Path ROOT = Path.of("..");

	private static final Pattern QUOTED_NAME = Pattern
		.compile("`((?:idempotency|management\\.endpoint\\.idempotency)\\.[a-z0-9.-]*[a-z0-9])(?:=[^`]*)?`");

	/** System properties the integration tests read to find their services (docs/reliability.md). */
	private static final String TEST_PROPERTY_PREFIX = "idempotency.test.";

	@Test
	void everyQuotedNameIsAPropertyAGroupOrAMeter() throws IOException {
		Set<String> known = knownNames();
		List<String> unknown = new ArrayList<>();
		for (Path page : pages()) {
			List<String> lines = Files.readAllLines(page, StandardCharsets.UTF_8);
			for (int i = 0; i < lines.size(); i++) {
				Matcher name = QUOTED_NAME.matcher(lines.get(i));
				while (name.find()) {
					if (!known.contains(name.group(1)) && !name.group(1).startsWith(TEST_PROPERTY_PREFIX)) {
						unknown.add(ROOT.relativize(page) + ":" + (i + 1) + " `" + name.group(1) + "`");
					}
				}
			}
		}
		assertThat(unknown).as("names quoted in the docs that no property, group or meter has").isEmpty();
	}

	@Test
	void aRenamedPropertyIsCaught() throws IOException {
		Set<String> known = knownNames();
		assertThat(known).contains("idempotency.retention", "idempotency.jdbc", "idempotency.invocations");
		Matcher name = QUOTED_NAME.matcher("set `idempotency.retention-period=7d` instead");
		assertThat(name.find()).isTrue();
		assertThat(known).doesNotContain(name.group(1));
	}

	private static List<Path> pages() throws IOException {
		List<Path> pages = new ArrayList<>();
		pages.add(ROOT.resolve("README.md"));
		pages.add(ROOT.resolve("sample-app/README.md"));
		try (Stream<Path> docs = Files.walk(ROOT.resolve("docs"))) {
			docs.filter((path) -> path.toString().endsWith(".md")).sorted().forEach(pages::add);
		}
		assertThat(pages).allMatch(Files::isRegularFile);
		return pages;
	}

	private static Set<String> knownNames() throws IOException {
		assertThat(METADATA).as("generated metadata; run the compile phase first").isRegularFile();
		String json = Files.readString(METADATA, StandardCharsets.UTF_8);
		Set<String> known = new HashSet<>();
		for (String section : List.of("$.properties[*]", "$.groups[*]")) {
			List<Map<String, Object>> entries = JsonPath.read(json, section);
			entries.forEach((entry) -> known.add((String) entry.get("name")));
		}
		known.addAll(meterNames());
		known.add(DefaultIdempotencyObservationConvention.NAME);
		Stream.of(IdempotencyObservationDocumentation.LowCardinalityKeyNames.values())
			.forEach((key) -> known.add(key.asString()));
		Stream.of(IdempotencyObservationDocumentation.HighCardinalityKeyNames.values())
			.forEach((key) -> known.add(key.asString()));
		return known;
	}

	/** The meter names of the engine and of each technology that has meters of its own. */
	private static Set<String> meterNames() {
		Set<String> names = new HashSet<>();
		for (Class<?> meters : List.of(IdempotencyMeters.class, RedisStreamMeters.class, OutboxMeters.class,
				KafkaShareMeters.class)) {
			for (Field field : meters.getFields()) {
				if (Modifier.isStatic(field.getModifiers()) && field.getType() == String.class) {
					try {
						String value = (String) field.get(null);
						if (value.startsWith("idempotency.")) {
							names.add(value);
						}
					}
					catch (IllegalAccessException ex) {
						throw new IllegalStateException(ex);
					}
				}
			}
		}
		return names;
	}

}
