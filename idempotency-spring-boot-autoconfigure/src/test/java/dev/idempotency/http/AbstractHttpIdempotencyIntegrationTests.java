package dev.idempotency.http;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.idempotency.autoconfigure.actuate.IdempotencyEndpoint;
import dev.idempotency.http.HttpTestApplication.Executions;
import dev.idempotency.metrics.IdempotencyMeters;
import io.micrometer.core.instrument.MeterRegistry;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code @Idempotent} handler methods over real HTTP: an embedded Tomcat on a random port, the JDK's
 * HTTP client, HTTP Basic users {@code alice} and {@code bob}, and a real store. One application
 * serves every test (each uses keys and references of its own); the restart test starts two more.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractHttpIdempotencyIntegrationTests {

	private static final int CONCURRENT = 50;

	private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

	private ConfigurableApplicationContext context;

	private Executions executions;

	private int port;

	/** Spring Boot properties of the store under test. */
	protected abstract String[] storeProperties();

	/** The store's name, as the meters tag it. */
	protected abstract String storeName();

	/** Prepares the store before the first application starts (tables, key prefixes). */
	protected void prepareStore() {
	}

	/** Cleans the store up after the last test. */
	protected void cleanUpStore() {
	}

	/** The business rows written for a reference, or {@code -1} without a database. */
	protected int businessRows(String reference) {
		return -1;
	}

	@BeforeAll
	void startApplication() {
		prepareStore();
		this.context = start();
		this.executions = this.context.getBean(Executions.class);
		this.port = port(this.context);
	}

	@AfterAll
	void stopApplication() {
		if (this.context != null) {
			this.context.close();
		}
		cleanUpStore();
	}

	@Test
	void aRetryWithTheSameKeyGetsTheFirstResponseReplayed() throws Exception {
		String reference = reference();
		String key = UUID.randomUUID().toString();
		HttpResponse<String> first = post("/payments", key, "alice", payment(reference, 5));
		HttpResponse<String> retry = post("/payments", key, "alice", payment(reference, 5));

		assertThat(first.statusCode()).isEqualTo(201);
		assertThat(first.headers().firstValue("Idempotent-Replayed")).isEmpty();
		assertThat(retry.statusCode()).isEqualTo(201);
		assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
		assertThat(retry.body()).isEqualTo(first.body()).contains("\"reference\":\"" + reference + "\"");
		assertThat(retry.headers().firstValue("Location")).isEqualTo(first.headers().firstValue("Location"))
			.hasValueSatisfying((location) -> assertThat(location).startsWith("/payments/"));
		assertThat(retry.headers().firstValue("Content-Type")).isEqualTo(first.headers().firstValue("Content-Type"));
		assertThat(first.headers().firstValue("X-Not-Stored")).hasValue("x");
		assertThat(retry.headers().firstValue("X-Not-Stored")).as("a header not in the stored list").isEmpty();
		assertThat(this.executions.of(reference)).isEqualTo(1);
		if (businessRows(reference) >= 0) {
			assertThat(businessRows(reference)).isEqualTo(1);
		}
		MeterRegistry meters = this.context.getBean(MeterRegistry.class);
		assertThat(meters.get(IdempotencyMeters.INVOCATIONS)
			.tag(IdempotencyMeters.NAMESPACE_TAG, "http:PaymentController#create")
			.tag(IdempotencyMeters.OUTCOME_TAG, "duplicate")
			.tag(IdempotencyMeters.STORE_TAG, storeName())
			.timer()
			.count()).isPositive();
	}

	@Test
	void fiftyConcurrentRequestsWithOneKeyRunTheHandlerOnce() throws Exception {
		String reference = reference();
		String key = UUID.randomUUID().toString();
		List<HttpResponse<String>> responses = concurrently(CONCURRENT,
				() -> post("/payments", key, "alice", payment(reference, 7)));

		assertThat(this.executions.of(reference)).isEqualTo(1);
		List<HttpResponse<String>> created = responses.stream().filter((response) -> response.statusCode() == 201)
			.toList();
		assertThat(created.stream().filter((response) -> response.headers().firstValue("Idempotent-Replayed").isEmpty()))
			.as("executed responses").hasSize(1);
		assertThat(created).extracting(HttpResponse::body).containsOnly(created.get(0).body());
		assertThat(responses).allSatisfy((response) -> assertThat(response.statusCode()).isIn(201, 409));
		responses.stream().filter((response) -> response.statusCode() == 409).forEach((conflict) -> {
			assertThat(conflict.headers().firstValue("Content-Type")).hasValue("application/problem+json");
			assertThat(conflict.headers().firstValue("Retry-After")).hasValue("1");
		});
	}

	@Test
	void theSameKeyWithAnotherBodyIsRefusedWith422() throws Exception {
		String reference = reference();
		String key = UUID.randomUUID().toString();
		assertThat(post("/payments", key, "alice", payment(reference, 5)).statusCode()).isEqualTo(201);

		HttpResponse<String> other = post("/payments", key, "alice", payment(reference, 6));

		assertThat(other.statusCode()).isEqualTo(422);
		assertThat(other.headers().firstValue("Content-Type")).hasValue("application/problem+json");
		assertThat(other.body()).contains("key-reused").contains("Idempotency-Key");
		assertThat(this.executions.of(reference)).isEqualTo(1);
	}

	@Test
	void anotherPrincipalWithTheSameKeyGetsItsOwnExecution() throws Exception {
		String reference = reference();
		String key = UUID.randomUUID().toString();
		HttpResponse<String> alice = post("/payments", key, "alice", payment(reference, 5));
		HttpResponse<String> bob = post("/payments", key, "bob", payment(reference, 5));

		assertThat(alice.statusCode()).isEqualTo(201);
		assertThat(bob.statusCode()).isEqualTo(201);
		assertThat(bob.headers().firstValue("Idempotent-Replayed")).isEmpty();
		assertThat(bob.headers().firstValue("Location")).isNotEqualTo(alice.headers().firstValue("Location"));
		assertThat(this.executions.of(reference)).isEqualTo(2);
		assertThat(post("/payments", key, "bob", payment(reference, 5)).headers().firstValue("Idempotent-Replayed"))
			.hasValue("true");
	}

	@Test
	void missingEmptyOverLongOrMalformedKeysAreRefusedWith400AndNothingRuns() throws Exception {
		String reference = reference();
		HttpResponse<String> missing = post("/payments", null, "alice", payment(reference, 5));
		HttpResponse<String> empty = post("/payments", "", "alice", payment(reference, 5));
		HttpResponse<String> tooLong = post("/payments", "k".repeat(256), "alice", payment(reference, 5));
		HttpResponse<String> badQuotes = post("/payments", "\"abc", "alice", payment(reference, 5));
		HttpResponse<String> badEscape = post("/payments", "\"a\\bc\"", "alice", payment(reference, 5));

		assertThat(List.of(missing, empty, tooLong, badQuotes, badEscape)).allSatisfy((response) -> {
			assertThat(response.statusCode()).isEqualTo(400);
			assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
			assertThat(response.body()).contains("\"maxLength\":255");
		});
		assertThat(missing.body()).contains("key-missing");
		assertThat(tooLong.body()).contains("256 characters long").contains("key-invalid");
		assertThat(this.executions.of(reference)).isZero();
		assertThat(post("/payments", "\"quoted-" + reference + "\"", "alice", payment(reference, 5)).statusCode())
			.as("a quoted key").isEqualTo(201);
	}

	@Test
	void anExplicitKeyExpressionOverTheRequestNeedsNoKeyHeader() throws Exception {
		String reference = reference();
		String orderId = UUID.randomUUID().toString();
		HttpResponse<String> first = send(this.port, "/orders", null, "alice", payment(reference, 3), orderId);
		HttpResponse<String> retry = send(this.port, "/orders", null, "alice", payment(reference, 3), orderId);

		assertThat(first.statusCode()).isEqualTo(200);
		assertThat(retry.body()).isEqualTo(first.body());
		assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
		assertThat(this.executions.of(reference)).isEqualTo(1);
		assertThat(send(this.port, "/orders", null, "alice", payment(reference, 3), null).statusCode())
			.as("the expression resolves to null").isEqualTo(400);
	}

	@Test
	void aBodyOverTheFingerprintLimitIsRefusedWith413AndNothingIsStored() throws Exception {
		String reference = reference();
		String key = UUID.randomUUID().toString();
		HttpResponse<String> tooLarge = post("/payments", key, "alice",
				"{\"reference\":\"" + reference + "\",\"amount\":5,\"note\":\"" + "n".repeat(5000) + "\"}");

		assertThat(tooLarge.statusCode()).isEqualTo(413);
		assertThat(tooLarge.body()).contains("body-too-large").contains("\"maxBodySize\":4096");
		assertThat(this.executions.of(reference)).isZero();
		HttpResponse<String> next = post("/payments", key, "alice", payment(reference, 5));
		assertThat(next.statusCode()).as("the key was not stored").isEqualTo(201);
		assertThat(next.headers().firstValue("Idempotent-Replayed")).isEmpty();
	}

	@Test
	void aResponseOverTheStoredSizeLimitFailsAndReleasesTheKey() throws Exception {
		String reference = reference();
		String key = UUID.randomUUID().toString();
		String report = "{\"reference\":\"" + reference + "\",\"size\":3000}";
		HttpResponse<String> first = post("/reports", key, "alice", report);
		HttpResponse<String> retry = post("/reports", key, "alice", report);

		assertThat(first.statusCode()).isEqualTo(500);
		assertThat(first.body()).contains("response-too-large").contains("idempotency.stored-result.max-size");
		assertThat(retry.statusCode()).isEqualTo(500);
		assertThat(this.executions.of(reference)).as("released: the retry ran again").isEqualTo(2);
		String small = "{\"reference\":\"" + reference + "\",\"size\":10}";
		String smallKey = UUID.randomUUID().toString();
		assertThat(post("/reports", smallKey, "alice", small).body()).isEqualTo("r".repeat(10));
		assertThat(post("/reports", smallKey, "alice", small).body()).as("a String replayed").isEqualTo("r".repeat(10));
	}

	@Test
	void aServerErrorReleasesTheKeyAndRollsBackAClientErrorIsStored() throws Exception {
		String failing = reference();
		String failingKey = UUID.randomUUID().toString();
		HttpResponse<String> serverError = post("/payments", failingKey, "alice", payment(failing, -1));
		HttpResponse<String> serverRetry = post("/payments", failingKey, "alice", payment(failing, -1));

		assertThat(serverError.statusCode()).isEqualTo(500);
		assertThat(serverError.body()).contains("provider down");
		assertThat(serverRetry.statusCode()).isEqualTo(500);
		assertThat(serverRetry.headers().firstValue("Idempotent-Replayed")).isEmpty();
		assertThat(this.executions.of(failing)).isEqualTo(2);
		if (businessRows(failing) >= 0) {
			assertThat(businessRows(failing)).as("rolled back with the key").isZero();
		}

		String rejected = reference();
		String rejectedKey = UUID.randomUUID().toString();
		HttpResponse<String> clientError = post("/payments", rejectedKey, "alice", payment(rejected, 0));
		HttpResponse<String> clientRetry = post("/payments", rejectedKey, "alice", payment(rejected, 0));

		assertThat(clientError.statusCode()).isEqualTo(400);
		assertThat(clientRetry.statusCode()).isEqualTo(400);
		assertThat(clientRetry.body()).isEqualTo(clientError.body()).contains("amount must be positive");
		assertThat(clientRetry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
		assertThat(this.executions.of(rejected)).isEqualTo(1);
	}

	@Test
	void anExceptionReleasesTheKey() throws Exception {
		String reference = reference();
		String key = UUID.randomUUID().toString();
		assertThat(post("/payments", key, "alice", payment(reference, 13)).statusCode()).isEqualTo(500);
		assertThat(post("/payments", key, "alice", payment(reference, 13)).statusCode()).isEqualTo(500);

		assertThat(this.executions.of(reference)).isEqualTo(2);
		if (businessRows(reference) >= 0) {
			assertThat(businessRows(reference)).isZero();
		}
	}

	@Test
	void aLeasedRequestInProgressIsAnsweredWith409AndItsResponseOnceCompleted() throws Exception {
		String reference = reference();
		String key = UUID.randomUUID().toString();
		CountDownLatch gate = new CountDownLatch(1);
		CountDownLatch entered = new CountDownLatch(1);
		this.executions.gates.put(reference, gate);
		this.executions.entered.put(reference, entered);
		ExecutorService executor = Executors.newSingleThreadExecutor();
		try {
			Future<HttpResponse<String>> first = executor.submit(() -> post("/charges", key, "alice",
					payment(reference, 9)));
			assertThat(entered.await(30, TimeUnit.SECONDS)).isTrue();

			HttpResponse<String> during = post("/charges", key, "alice", payment(reference, 9));

			assertThat(during.statusCode()).isEqualTo(409);
			assertThat(during.headers().firstValue("Retry-After")).hasValue("1");
			assertThat(during.body()).contains("key-in-progress");
			gate.countDown();
			HttpResponse<String> completed = first.get(30, TimeUnit.SECONDS);
			assertThat(completed.statusCode()).isEqualTo(200);
			HttpResponse<String> after = post("/charges", key, "alice", payment(reference, 9));
			assertThat(after.body()).isEqualTo(completed.body());
			assertThat(after.headers().firstValue("Idempotent-Replayed")).hasValue("true");
			assertThat(this.executions.of(reference)).isEqualTo(1);
		}
		finally {
			gate.countDown();
			executor.shutdownNow();
		}
	}

	@Test
	void aCompletedRequestIsReplayedAfterARestart() throws Exception {
		String reference = reference();
		String key = UUID.randomUUID().toString();
		HttpResponse<String> first;
		try (ConfigurableApplicationContext before = start()) {
			first = post(port(before), "/payments", key, "alice", payment(reference, 5));
			assertThat(first.statusCode()).isEqualTo(201);
		}
		try (ConfigurableApplicationContext after = start()) {
			HttpResponse<String> retry = post(port(after), "/payments", key, "alice", payment(reference, 5));

			assertThat(retry.statusCode()).isEqualTo(201);
			assertThat(retry.body()).isEqualTo(first.body());
			assertThat(retry.headers().firstValue("Location")).isEqualTo(first.headers().firstValue("Location"));
			assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
			assertThat(after.getBean(Executions.class).of(reference)).isZero();
		}
	}

	@Test
	void theEndpointLooksUpAndReleasesAnHttpKeyByNamespaceAndScopedKey() throws Exception {
		String reference = reference();
		String key = UUID.randomUUID().toString();
		assertThat(post("/payments", key, "alice", payment(reference, 5)).statusCode()).isEqualTo(201);
		IdempotencyEndpoint endpoint = this.context.getBean(IdempotencyEndpoint.class);
		String namespace = "http:PaymentController#create";
		String[] scopedKey = { "alice:" + key };

		WebEndpointResponse<Object> found = endpoint.lookup("keys", namespace, scopedKey, null, null, null, null);
		WebEndpointResponse<Object> released = endpoint.release("keys", namespace, scopedKey, null,
				SecurityContext.NONE);

		assertThat(found.getStatus()).isEqualTo(200);
		assertThat(String.valueOf(found.getBody())).contains("COMPLETED");
		assertThat(released.getStatus()).isEqualTo(200);
		HttpResponse<String> again = post("/payments", key, "alice", payment(reference, 5));
		assertThat(again.statusCode()).isEqualTo(201);
		assertThat(again.headers().firstValue("Idempotent-Replayed")).as("released: runs again").isEmpty();
		assertThat(this.executions.of(reference)).isEqualTo(2);
	}

	private ConfigurableApplicationContext start() {
		List<String> properties = new ArrayList<>(List.of(storeProperties()));
		properties.add("server.port=0");
		properties.add("idempotency.http.max-body-size=4KB");
		properties.add("idempotency.stored-result.max-size=2KB");
		properties.add("management.endpoints.web.exposure.include=idempotency");
		return new SpringApplicationBuilder(HttpTestApplication.class).web(WebApplicationType.SERVLET)
			.properties(properties.toArray(String[]::new))
			.run();
	}

	private static int port(ConfigurableApplicationContext context) {
		return Integer.parseInt(context.getEnvironment().getRequiredProperty("local.server.port"));
	}

	private HttpResponse<String> post(String path, @Nullable String key, String user, String body) throws Exception {
		return post(this.port, path, key, user, body);
	}

	private HttpResponse<String> post(int port, String path, @Nullable String key, String user, String body)
			throws Exception {
		return send(port, path, key, user, body, null);
	}

	private HttpResponse<String> send(int port, String path, @Nullable String key, String user, String body,
			@Nullable String orderId) throws Exception {
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
			.timeout(Duration.ofSeconds(30))
			.header("Content-Type", "application/json")
			.header("Authorization",
					"Basic " + Base64.getEncoder().encodeToString((user + ":pw").getBytes(StandardCharsets.UTF_8)))
			.POST(HttpRequest.BodyPublishers.ofString(body));
		if (key != null) {
			request.header("Idempotency-Key", key);
		}
		if (orderId != null) {
			request.header("X-Order-Id", orderId);
		}
		return this.client.send(request.build(), HttpResponse.BodyHandlers.ofString());
	}

	private static <T> List<T> concurrently(int count, ThrowingSupplier<T> call) throws Exception {
		ExecutorService executor = Executors.newFixedThreadPool(count);
		CyclicBarrier start = new CyclicBarrier(count);
		try {
			List<Future<T>> futures = new ArrayList<>();
			for (int i = 0; i < count; i++) {
				futures.add(executor.submit(() -> {
					start.await(30, TimeUnit.SECONDS);
					return call.get();
				}));
			}
			List<T> results = new ArrayList<>();
			for (Future<T> future : futures) {
				results.add(future.get(60, TimeUnit.SECONDS));
			}
			return results;
		}
		finally {
			executor.shutdownNow();
		}
	}

	private static String payment(String reference, long amount) {
		return "{\"reference\":\"" + reference + "\",\"amount\":" + amount + "}";
	}

	private static String reference() {
		return "ref-" + UUID.randomUUID();
	}

	@FunctionalInterface
	interface ThrowingSupplier<T> {

		T get() throws Exception;

	}

}
