package dev.idempotency.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import com.jayway.jsonpath.DocumentContext;
import com.jayway.jsonpath.JsonPath;
import dev.idempotency.kafka.autoconfigure.IdempotencyKafkaProperties;
import dev.idempotency.outbox.autoconfigure.IdempotencyOutboxProperties;
import dev.idempotency.rabbit.autoconfigure.IdempotencyRabbitProperties;
import org.junit.jupiter.api.Test;

import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.core.io.ClassPathResource;
import org.springframework.mock.env.MockEnvironment;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link RetryProperties}, shared by {@code idempotency.kafka.retry}, {@code idempotency.rabbit.retry}
 * and {@code idempotency.outbox.retry}: each feature keeps its own defaults, binds under its own prefix,
 * and the defaults that {@code additional-spring-configuration-metadata.json} documents are the ones
 * the constructors set.
 */
class RetryPropertiesTests {

	@Test
	void kafkaRetriesThreeDeliveriesWithABackOffFromOneToTenSeconds() {
		RetryProperties retry = new IdempotencyKafkaProperties().getRetry();
		assertThat(retry.getMaxAttempts()).isEqualTo(3);
		assertThat(retry.getInitialInterval()).isEqualTo(Duration.ofSeconds(1));
		assertThat(retry.getMultiplier()).isEqualTo(2.0);
		assertThat(retry.getMaxInterval()).isEqualTo(Duration.ofSeconds(10));
	}

	@Test
	void rabbitRetriesThreeAttemptsWithABackOffFromOneToTenSeconds() {
		RetryProperties retry = new IdempotencyRabbitProperties().getRetry();
		assertThat(retry.getMaxAttempts()).isEqualTo(3);
		assertThat(retry.getInitialInterval()).isEqualTo(Duration.ofSeconds(1));
		assertThat(retry.getMultiplier()).isEqualTo(2.0);
		assertThat(retry.getMaxInterval()).isEqualTo(Duration.ofSeconds(10));
	}

	@Test
	void outboxRetriesTenTimesWithABackOffFromOneSecondToFiveMinutes() {
		RetryProperties retry = new IdempotencyOutboxProperties().getRetry();
		assertThat(retry.getMaxAttempts()).isEqualTo(10);
		assertThat(retry.getInitialInterval()).isEqualTo(Duration.ofSeconds(1));
		assertThat(retry.getMultiplier()).isEqualTo(2.0);
		assertThat(retry.getMaxInterval()).isEqualTo(Duration.ofMinutes(5));
	}

	@Test
	void eachFeatureBindsItsOwnRetry() {
		MockEnvironment environment = new MockEnvironment().withProperty("idempotency.kafka.retry.max-attempts", "5")
			.withProperty("idempotency.kafka.retry.max-interval", "30s")
			.withProperty("idempotency.outbox.retry.multiplier", "3")
			.withProperty("idempotency.outbox.retry.jitter", "1s")
			.withProperty("idempotency.rabbit.retry.initial-interval", "250ms");
		Binder binder = Binder.get(environment);
		IdempotencyKafkaProperties kafka = binder.bindOrCreate("idempotency.kafka", IdempotencyKafkaProperties.class);
		IdempotencyOutboxProperties outbox = binder.bindOrCreate("idempotency.outbox",
				IdempotencyOutboxProperties.class);
		IdempotencyRabbitProperties rabbit = binder.bindOrCreate("idempotency.rabbit",
				IdempotencyRabbitProperties.class);
		assertThat(kafka.getRetry().getMaxAttempts()).isEqualTo(5);
		assertThat(kafka.getRetry().getMaxInterval()).isEqualTo(Duration.ofSeconds(30));
		assertThat(kafka.getRetry().getMultiplier()).isEqualTo(2.0);
		assertThat(outbox.getRetry().getMultiplier()).isEqualTo(3.0);
		assertThat(outbox.getRetry().getJitter()).isEqualTo(Duration.ofSeconds(1));
		assertThat(outbox.getRetry().getMaxAttempts()).isEqualTo(10);
		assertThat(rabbit.getRetry().getInitialInterval()).isEqualTo(Duration.ofMillis(250));
		assertThat(rabbit.getRetry().getMaxInterval()).isEqualTo(Duration.ofSeconds(10));
		assertThat(kafka.getRetry().getInitialInterval()).isEqualTo(Duration.ofSeconds(1));
	}

	@Test
	void documentedDefaultsAreTheConstructorsDefaults() throws IOException {
		DocumentContext metadata;
		try (InputStream json = new ClassPathResource("META-INF/spring-configuration-metadata.json").getInputStream()) {
			metadata = JsonPath.parse(new String(json.readAllBytes(), StandardCharsets.UTF_8));
		}
		Map<String, RetryProperties> features = Map.of("idempotency.kafka.retry",
				new IdempotencyKafkaProperties().getRetry(), "idempotency.rabbit.retry",
				new IdempotencyRabbitProperties().getRetry(), "idempotency.outbox.retry",
				new IdempotencyOutboxProperties().getRetry());
		features.forEach((prefix, retry) -> {
			assertThat(defaultOf(metadata, prefix + ".max-attempts")).as(prefix)
				.isEqualTo(String.valueOf(retry.getMaxAttempts()));
			assertThat(DurationStyle.detectAndParse(defaultOf(metadata, prefix + ".initial-interval"))).as(prefix)
				.isEqualTo(retry.getInitialInterval());
			assertThat(Double.parseDouble(defaultOf(metadata, prefix + ".multiplier"))).as(prefix)
				.isEqualTo(retry.getMultiplier());
			assertThat(DurationStyle.detectAndParse(defaultOf(metadata, prefix + ".max-interval"))).as(prefix)
				.isEqualTo(retry.getMaxInterval());
		});
	}

	private static String defaultOf(DocumentContext metadata, String name) {
		List<Object> defaults = metadata.read("$.properties[?(@.name == '" + name + "')].defaultValue");
		assertThat(defaults).as(name).hasSize(1);
		return String.valueOf(defaults.get(0));
	}

}
