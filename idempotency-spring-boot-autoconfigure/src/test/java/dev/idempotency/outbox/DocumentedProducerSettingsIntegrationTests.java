package dev.idempotency.outbox;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import dev.idempotency.testsupport.TestKafkaBrokers;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.TestInstance;

import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.env.PropertiesPropertySourceLoader;
import org.springframework.boot.env.PropertySourceLoader;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.boot.kafka.autoconfigure.KafkaProperties;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.ByteArrayResource;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every YAML or properties snippet in {@code docs/*.md} that configures
 * {@code spring.kafka.producer} is bound as Spring Boot binds it and turned into a real
 * {@code KafkaProducer} that sends one record to the in-process broker: the Kafka client validates
 * its settings when it is created (for example {@code delivery.timeout.ms} must be at least
 * {@code linger.ms + request.timeout.ms}), so a documented setting the client rejects fails here
 * rather than in a reader's application.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DocumentedProducerSettingsIntegrationTests {

	private static final Pattern SNIPPET = Pattern.compile("```(yaml|yml|properties)\\n(.*?)```", Pattern.DOTALL);

	private EmbeddedKafkaKraftBroker broker;

	@BeforeAll
	void startBroker() {
		this.broker = TestKafkaBrokers
			.withSmallInternalTopics(new EmbeddedKafkaKraftBroker(1, 1, "documented-producer"));
		this.broker.afterPropertiesSet();
	}

	@AfterAll
	void stopBroker() {
		this.broker.destroy();
	}

	@Test
	void theOutboxPageDocumentsProducerSettings() throws IOException {
		assertThat(producerSnippets()).filteredOn((snippet) -> snippet.file().endsWith("outbox.md")).hasSizeGreaterThanOrEqualTo(2);
	}

	@TestFactory
	Stream<DynamicTest> everyDocumentedProducerSnippetBuildsAProducerThatSends() throws IOException {
		return producerSnippets().stream()
			.map((snippet) -> DynamicTest.dynamicTest(snippet.toString(), () -> buildAndSend(snippet)));
	}

	private void buildAndSend(Snippet snippet) throws Exception {
		KafkaProperties properties = bind(snippet);
		Map<String, Object> producer = properties.buildProducerProperties();
		producer.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, this.broker.getBrokersAsString());
		try (KafkaProducer<String, String> kafka = new KafkaProducer<>(producer, new StringSerializer(),
				new StringSerializer())) {
			kafka.send(new ProducerRecord<>("documented-producer", "k", "v")).get(30, TimeUnit.SECONDS);
			kafka.flush();
		}
		if (snippet.file().endsWith("outbox.md")) {
			// The relay's producer: a send must not block longer than the relay waits for it.
			assertThat(Duration.ofMillis(Long.parseLong(String.valueOf(producer.getOrDefault(
					ProducerConfig.MAX_BLOCK_MS_CONFIG, "60000")))))
				.as("max.block.ms within the relay's default send timeout")
				.isLessThanOrEqualTo(Duration.ofSeconds(10));
		}
	}

	private static KafkaProperties bind(Snippet snippet) throws IOException {
		PropertySourceLoader loader = snippet.language().equals("properties") ? new PropertiesPropertySourceLoader()
				: new YamlPropertySourceLoader();
		List<PropertySource<?>> sources = loader.load(snippet.toString(),
				new ByteArrayResource(snippet.text().getBytes(StandardCharsets.UTF_8)));
		Binder binder = new Binder(ConfigurationPropertySources.from(sources));
		return binder.bind("spring.kafka", KafkaProperties.class).orElseGet(KafkaProperties::new);
	}

	private static List<Snippet> producerSnippets() throws IOException {
		Path docs = Stream.of(Path.of("docs"), Path.of("..", "docs"))
			.filter(Files::isDirectory)
			.findFirst()
			.orElseThrow(() -> new IllegalStateException("docs/ not found from " + Path.of("").toAbsolutePath()));
		List<Snippet> snippets = new ArrayList<>();
		try (Stream<Path> files = Files.list(docs)) {
			for (Path file : files.filter((path) -> path.toString().endsWith(".md")).sorted().toList()) {
				String markdown = Files.readString(file);
				Matcher matcher = SNIPPET.matcher(markdown);
				while (matcher.find()) {
					String text = matcher.group(2);
					if (text.contains("producer:") || text.contains("spring.kafka.producer.")) {
						int line = markdown.substring(0, matcher.start()).split("\n", -1).length;
						snippets.add(new Snippet(file.getFileName().toString(), line, matcher.group(1), text));
					}
				}
			}
		}
		return snippets;
	}

	record Snippet(String file, int line, String language, String text) {

		@Override
		public String toString() {
			return this.file + ":" + this.line;
		}

	}

}
