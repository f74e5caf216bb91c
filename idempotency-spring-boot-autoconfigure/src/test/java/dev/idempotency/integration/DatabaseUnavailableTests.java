package dev.idempotency.integration;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import dev.idempotency.annotation.Idempotent;
import dev.idempotency.core.DeliveryContext;
import dev.idempotency.core.DeliveryContextHolder;
import dev.idempotency.core.IdempotencyEvent;
import dev.idempotency.core.IdempotencyListener;
import dev.idempotency.core.IdempotencyOutcome;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.transaction.CannotCreateTransactionException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The database is unreachable when a message arrives: the listener must not run, the delivery must
 * not be acknowledged, and the outcome is {@code failed} with the cause, so the broker retries it.
 */
class DatabaseUnavailableTests {

	@AfterEach
	void unbindDelivery() {
		DeliveryContextHolder.clear();
	}

	@Test
	void unreachableDatabaseFailsTheDeliveryWithoutRunningOrAcknowledgingIt() {
		try (ConfigurableApplicationContext context = new SpringApplicationBuilder(UnreachableDatabaseApplication.class)
			.web(WebApplicationType.NONE)
			.properties("spring.datasource.url=jdbc:postgresql://127.0.0.1:1/test",
					"spring.datasource.hikari.connection-timeout=250", "idempotency.jdbc.platform=postgresql",
					"idempotency.jdbc.initialize-schema=never", "idempotency.jdbc.purge.enabled=false")
			.run()) {
			AtomicInteger acknowledgements = new AtomicInteger();
			DeliveryContextHolder.set(new DeliveryContext("m-1", null, Map.of(), acknowledgements::incrementAndGet,
					List.of()));
			Listener listener = context.getBean(Listener.class);

			assertThatExceptionOfType(CannotCreateTransactionException.class).isThrownBy(() -> listener.handle("o-1"));

			assertThat(listener.calls()).isZero();
			assertThat(acknowledgements).hasValue(0);
			RecordingListener events = context.getBean(RecordingListener.class);
			assertThat(events.events).singleElement().satisfies((event) -> {
				assertThat(event.outcome()).isEqualTo(IdempotencyOutcome.FAILED);
				assertThat(event.failure()).isInstanceOf(CannotCreateTransactionException.class);
			});
		}
	}

	static class Listener {

		private final AtomicInteger calls = new AtomicInteger();

		public int calls() {
			return this.calls.get();
		}

		@Idempotent(key = "#orderId", namespace = "unreachable")
		public void handle(String orderId) {
			this.calls.incrementAndGet();
		}

	}

	static class RecordingListener implements IdempotencyListener {

		final List<IdempotencyEvent> events = new CopyOnWriteArrayList<>();

		@Override
		public void onOutcome(IdempotencyEvent event) {
			this.events.add(event);
		}

	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class UnreachableDatabaseApplication {

		@Bean
		Listener listener() {
			return new Listener();
		}

		@Bean
		RecordingListener recordingListener() {
			return new RecordingListener();
		}

	}

}
