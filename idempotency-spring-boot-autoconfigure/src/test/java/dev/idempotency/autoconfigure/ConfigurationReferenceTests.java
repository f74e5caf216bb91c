package dev.idempotency.autoconfigure;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.jayway.jsonpath.JsonPath;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Keeps {@code docs/configuration.md} in sync with the configuration metadata that the annotation
 * processor generates from the {@code @ConfigurationProperties} classes (and
 * {@code additional-spring-configuration-metadata.json}).
 */
class ConfigurationReferenceTests {

	/** Relative to the module directory, which is the working directory under Surefire. */
	private static final Path METADATA = Path.of("target/classes/META-INF/spring-configuration-metadata.json");

	private static final Path REFERENCE = Path.of("../docs/configuration.md");

	// The starter's properties, and Actuator's of the idempotency endpoint (Boot's configuration
	// processor writes those into the same metadata).
	private static final Pattern PROPERTY_NAME = Pattern
		.compile("`((?:idempotency|management\\.endpoint\\.idempotency)\\.[a-z0-9.-]*[a-z0-9])`");

	/** Property name to default value as written in the metadata ({@code null} when it has none). */
	private final Map<String, Object> metadata = new LinkedHashMap<>();

	/** Documented property name (first cell of a table row) to its default cell. */
	private final Map<String, String> documented = new LinkedHashMap<>();

	/** Every {@code idempotency.*} name quoted anywhere in a table row. */
	private final Set<String> mentioned = new LinkedHashSet<>();

	@BeforeEach
	void readMetadataAndReference() throws IOException {
		assertThat(METADATA).as("generated metadata; run the compile phase first").isRegularFile();
		assertThat(REFERENCE).isRegularFile();
		List<Map<String, Object>> properties = JsonPath.read(Files.readString(METADATA, StandardCharsets.UTF_8),
				"$.properties[*]");
		for (Map<String, Object> property : properties) {
			this.metadata.put((String) property.get("name"), property.get("defaultValue"));
		}
		for (String line : Files.readAllLines(REFERENCE, StandardCharsets.UTF_8)) {
			if (!line.startsWith("|")) {
				continue;
			}
			String[] cells = line.split("\\|", -1);
			if (cells.length > 2) {
				Matcher name = PROPERTY_NAME.matcher(cells[1].trim());
				if (name.matches()) {
					this.documented.put(name.group(1), cells[2].trim());
				}
			}
			Matcher mention = PROPERTY_NAME.matcher(line);
			while (mention.find()) {
				this.mentioned.add(mention.group(1));
			}
		}
	}

	@Test
	void metadataDescribesTheIdempotencyProperties() {
		assertThat(this.metadata).containsKeys("idempotency.enabled", "idempotency.retention",
				"idempotency.jdbc.table-name", "idempotency.metrics.enabled");
	}

	@Test
	void everyPropertyInTheMetadataIsDocumented() {
		assertThat(this.documented.keySet()).as("properties in the tables of %s", REFERENCE)
			.containsAll(this.metadata.keySet());
	}

	@Test
	void everyPropertyTheReferenceMentionsExists() {
		assertThat(this.metadata.keySet()).as("properties in %s", METADATA).containsAll(this.mentioned);
	}

	@Test
	void everyDocumentedDefaultMatchesTheMetadata() {
		this.metadata.forEach((name, defaultValue) -> {
			if (defaultValue != null && this.documented.containsKey(name)) {
				assertThat(this.documented.get(name).replace("`", "")).as("default of %s", name)
					.isEqualTo(String.valueOf(defaultValue));
			}
		});
	}

}
