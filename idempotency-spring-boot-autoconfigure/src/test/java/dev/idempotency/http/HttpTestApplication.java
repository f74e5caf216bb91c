package dev.idempotency.http;

import java.net.URI;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import dev.idempotency.annotation.Idempotent;
import dev.idempotency.annotation.IdempotencyMode;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.annotation.web.configuration.EnableWebSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * A web application with {@code @Idempotent} handler methods behind HTTP Basic (users {@code alice}
 * and {@code bob}): payments (a business row in the transaction when there is a database), charges
 * (leased mode, a provider call no transaction covers) and reports (a response of a chosen size).
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@EnableWebSecurity
class HttpTestApplication {

	@Bean
	SimpleMeterRegistry meterRegistry() {
		return new SimpleMeterRegistry();
	}

	@Bean
	Executions executions() {
		return new Executions();
	}

	@Bean
	SecurityFilterChain securityFilterChain(HttpSecurity http) throws Exception {
		return http.authorizeHttpRequests((requests) -> requests.anyRequest().authenticated())
			.httpBasic((basic) -> {
			})
			.csrf((csrf) -> csrf.disable())
			.build();
	}

	@Bean
	InMemoryUserDetailsManager users() {
		return new InMemoryUserDetailsManager(User.withUsername("alice").password("{noop}pw").roles("USER").build(),
				User.withUsername("bob").password("{noop}pw").roles("USER").build());
	}

	record PaymentRequest(String reference, long amount) {
	}

	record Payment(long id, String reference, long amount) {
	}

	record ReportRequest(String reference, int size) {
	}

	/** What the handlers did, per reference. */
	static class Executions {

		final Map<String, AtomicInteger> counts = new ConcurrentHashMap<>();

		final Map<String, CountDownLatch> gates = new ConcurrentHashMap<>();

		final Map<String, CountDownLatch> entered = new ConcurrentHashMap<>();

		int of(String reference) {
			AtomicInteger count = this.counts.get(reference);
			return (count != null) ? count.get() : 0;
		}

		void ran(String reference) {
			this.counts.computeIfAbsent(reference, (key) -> new AtomicInteger()).incrementAndGet();
		}

	}

	@RestController
	static class PaymentController {

		private final AtomicLong ids = new AtomicLong(1000);

		private final Executions executions;

		private final JdbcTemplate jdbc;

		// A member @Component: registered with its configuration class.
		PaymentController(Executions executions, ObjectProvider<JdbcTemplate> jdbc) {
			this.executions = executions;
			this.jdbc = jdbc.getIfAvailable();
		}

		/**
		 * Creates a payment: 201 with a Location. A negative amount answers 500, zero answers 400,
		 * 13 throws; the business row is written before either. Waits at the reference's gate, after
		 * the business row, when the test set one.
		 */
		@PostMapping("/payments")
		@Idempotent
		ResponseEntity<?> create(@RequestBody PaymentRequest request) throws InterruptedException {
			this.executions.ran(request.reference());
			long id = this.ids.incrementAndGet();
			if (this.jdbc != null) {
				this.jdbc.update("INSERT INTO http_payment (reference, amount) VALUES (?, ?)", request.reference(),
						request.amount());
			}
			awaitGate(request.reference());
			if (request.amount() < 0) {
				return ResponseEntity.internalServerError().body(Map.of("error", "provider down"));
			}
			if (request.amount() == 0) {
				return ResponseEntity.badRequest().body(Map.of("error", "amount must be positive"));
			}
			if (request.amount() == 13) {
				throw new IllegalStateException("unlucky");
			}
			// Some work, so that concurrent requests overlap.
			sleep(50);
			return ResponseEntity.created(URI.create("/payments/" + id))
				.header("X-Not-Stored", "x")
				.body(new Payment(id, request.reference(), request.amount()));
		}

		/** Charges at a provider, leased: waits at the reference's gate when the test set one. */
		@PostMapping("/charges")
		@Idempotent(mode = IdempotencyMode.LEASED, lease = "30s")
		Payment charge(@RequestBody PaymentRequest request) throws InterruptedException {
			awaitGate(request.reference());
			this.executions.ran(request.reference());
			return new Payment(this.ids.incrementAndGet(), request.reference(), request.amount());
		}

		/** Says the handler was entered and waits at the reference's gate, if the test set them. */
		private void awaitGate(String reference) throws InterruptedException {
			CountDownLatch entered = this.executions.entered.get(reference);
			if (entered != null) {
				entered.countDown();
			}
			CountDownLatch gate = this.executions.gates.get(reference);
			if (gate != null && !gate.await(30, TimeUnit.SECONDS)) {
				throw new IllegalStateException("gate not opened");
			}
		}

		/** Keyed by an explicit expression over the request instead of the Idempotency-Key header. */
		@PostMapping("/orders")
		@Idempotent(key = "#httpRequest.getHeader('X-Order-Id')")
		Payment order(@RequestBody PaymentRequest request) {
			this.executions.ran(request.reference());
			return new Payment(this.ids.incrementAndGet(), request.reference(), request.amount());
		}

		/** A report of the requested size. */
		@PostMapping("/reports")
		@Idempotent
		String report(@RequestBody ReportRequest request) {
			this.executions.ran(request.reference());
			return "r".repeat(request.size());
		}

		private static void sleep(long millis) {
			try {
				Thread.sleep(millis);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}

	}

}
