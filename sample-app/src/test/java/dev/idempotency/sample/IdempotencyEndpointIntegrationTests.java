package dev.idempotency.sample;

import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.kafka.core.KafkaAdmin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The {@code idempotency} Actuator endpoint over HTTP in the running sample app: a key the demo
 * processed is looked up; with writes enabled a parked key is released, a dead outbox row is
 * re-driven and sent again, a processed key is released, and the records the demo dead-lettered are
 * shown by a dry run that sends nothing, and one that still fails is re-driven and dead-lettered
 * again; with the default access, every write is refused and
 * changes nothing.
 */
class IdempotencyEndpointIntegrationTests {

	private static final String DEMO = "spring.main.web-application-type=servlet";

	private static final HttpClient http = HttpClient.newHttpClient();

	private static final JsonMapper json = JsonMapper.shared();

	@Nested
	@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT,
			properties = { DEMO, "management.endpoints.web.exposure.include=health,idempotency",
					"management.endpoint.idempotency.access=unrestricted", "demo.orders=20",
					"demo.payments.count=5", "demo.redis-stream.enabled=false",
					"spring.datasource.url=jdbc:h2:mem:points-endpoint-writes;DB_CLOSE_DELAY=-1" })
	class WithWritesEnabled {

		@LocalServerPort
		private int port;

		@Autowired
		private JdbcTemplate jdbc;

		@Autowired
		private KafkaAdmin admin;

		@Test
		void aKeyTheDemoProcessedIsLookedUpAndReleased() throws Exception {
			String orderId = processedOrderId(this.jdbc);
			HttpResponse<String> lookup = send(this.port, "GET", keyPath(orderId));
			assertThat(lookup.statusCode()).isEqualTo(200);
			JsonNode record = json.readTree(lookup.body()).get("stores").get("idempotencyStore");
			assertThat(record.get("status").asString()).isEqualTo("COMPLETED");
			assertThat(record.get("createdAt").isNull()).isFalse();
			assertThat(record.get("expiresAt").isNull()).isFalse();
			assertThat(send(this.port, "DELETE", keyPath(orderId)).statusCode()).isEqualTo(200);
			assertThat(send(this.port, "GET", keyPath(orderId)).statusCode()).isEqualTo(404);
			assertThat(this.jdbc.queryForObject(
					"SELECT COUNT(*) FROM idempotency_record WHERE namespace = ? AND idempotency_key = ?",
					Integer.class, KafkaFlow.GROUP, orderId))
				.isZero();
		}

		@Test
		void aKeyWithReservedCharactersIsLookedUpPercentEncoded() throws Exception {
			insertRecord(this.jdbc, "Class#method", "a:b/c d", "COMPLETED");
			String path = "/actuator/idempotency/keys/" + encode("Class#method") + "/" + encode("a:b") + "/"
					+ encode("c d");
			HttpResponse<String> lookup = send(this.port, "GET", path);
			assertThat(lookup.statusCode()).isEqualTo(200);
			assertThat(json.readTree(lookup.body()).get("key").asString()).isEqualTo("a:b/c d");
		}

		@Test
		void aParkedKeyIsListedAndReleased() throws Exception {
			insertRecord(this.jdbc, "manual", "order-9", "PARKED");
			HttpResponse<String> listed = send(this.port, "GET", "/actuator/idempotency/parked?namespace=manual");
			assertThat(listed.statusCode()).isEqualTo(200);
			assertThat(json.readTree(listed.body()).get("keys").get(0).get("key").asString()).isEqualTo("order-9");
			assertThat(send(this.port, "DELETE", "/actuator/idempotency/parked/manual/order-9").statusCode())
				.isEqualTo(200);
			assertThat(send(this.port, "DELETE", "/actuator/idempotency/parked/manual/order-9").statusCode())
				.isEqualTo(404);
		}

		@Test
		void aDeadOutboxRowIsListedRedrivenAndSentAgain() throws Exception {
			String messageId = this.jdbc.queryForObject(
					"SELECT message_id FROM idempotency_outbox WHERE status = 'SENT' ORDER BY id FETCH FIRST 1 ROWS ONLY",
					String.class);
			this.jdbc.update("UPDATE idempotency_outbox SET status = 'DEAD', last_error = 'test' WHERE message_id = ?",
					messageId);
			HttpResponse<String> dead = send(this.port, "GET", "/actuator/idempotency/outbox/dead?page=0&size=10");
			assertThat(dead.statusCode()).isEqualTo(200);
			JsonNode page = json.readTree(dead.body());
			assertThat(page.get("totalDead").asLong()).isEqualTo(1);
			assertThat(page.get("messages").get(0).get("messageId").asString()).isEqualTo(messageId);
			assertThat(page.get("messages").get(0).has("payload")).isFalse();
			assertThat(send(this.port, "POST", "/actuator/idempotency/outbox/dead/" + messageId).statusCode())
				.isEqualTo(200);
			await().atMost(Duration.ofSeconds(30))
				.untilAsserted(() -> assertThat(this.jdbc.queryForObject(
						"SELECT status FROM idempotency_outbox WHERE message_id = ?", String.class, messageId))
					.isEqualTo("SENT"));
			assertThat(send(this.port, "POST", "/actuator/idempotency/outbox/dead").body())
				.isEqualTo("{\"redriven\":0}");
		}

		@Test
		void theRecordsTheDemoDeadLetteredAreShownByADryRunThatSendsNothing() throws Exception {
			long ordersEnd = KafkaOffsets.endOffsets(this.admin, KafkaFlow.TOPIC);
			long deadLettersEnd = KafkaOffsets.endOffsets(this.admin, KafkaFlow.DEAD_LETTER_TOPIC);
			assertThat(deadLettersEnd).isPositive();
			HttpResponse<String> preview = send(this.port, "GET",
					"/actuator/idempotency/dead-letters/kafka/" + KafkaFlow.TOPIC + "?limit=50");
			assertThat(preview.statusCode()).isEqualTo(200);
			JsonNode report = json.readTree(preview.body());
			assertThat(report.get("dryRun").asBoolean()).isTrue();
			assertThat(report.get("sent").asInt()).isZero();
			assertThat(report.get("deadLetterTopic").asString()).isEqualTo(KafkaFlow.DEAD_LETTER_TOPIC);
			JsonNode records = report.get("records");
			assertThat(records.size()).isEqualTo((int) deadLettersEnd);
			for (JsonNode record : records) {
				assertThat(record.get("originalTopic").asString()).isEqualTo(KafkaFlow.TOPIC);
				assertThat(record.get("originalOffset").isNull()).isFalse();
				assertThat(record.get("exceptionClass").asString()).isNotBlank();
				assertThat(record.has("value")).isFalse();
			}
			// The broken orders carry a message id (a re-drive keeps it); the malformed records have none
			assertThat(records.valueStream().filter((record) -> !record.get("messageId").isNull())).isNotEmpty();
			// The next page starts after the first record
			JsonNode first = records.get(0);
			HttpResponse<String> next = send(this.port, "GET",
					"/actuator/idempotency/dead-letters/kafka/" + KafkaFlow.TOPIC + "?limit=1&partition="
							+ first.get("partition").asInt() + "&fromOffset=" + (first.get("offset").asLong() + 1));
			assertThat(next.statusCode()).isEqualTo(200);
			assertThat(json.readTree(next.body()).get("records").get(0).get("offset").asLong())
				.isGreaterThan(first.get("offset").asLong());
			Thread.sleep(500);
			assertThat(KafkaOffsets.endOffsets(this.admin, KafkaFlow.TOPIC)).isEqualTo(ordersEnd);
			assertThat(KafkaOffsets.endOffsets(this.admin, KafkaFlow.DEAD_LETTER_TOPIC)).isEqualTo(deadLettersEnd);
		}

		@Test
		void aDeadLetterThatStillFailsIsRedrivenAndReturnsToTheDeadLetterTopic() throws Exception {
			String path = "/actuator/idempotency/dead-letters/kafka/" + KafkaFlow.TOPIC;
			JsonNode broken = json.readTree(send(this.port, "GET", path + "?limit=200").body())
				.get("records")
				.valueStream()
				.filter((record) -> !record.get("messageId").isNull())
				.findFirst()
				.orElseThrow();
			String messageId = broken.get("messageId").asString();
			long deadLettersEnd = KafkaOffsets.endOffsets(this.admin, KafkaFlow.DEAD_LETTER_TOPIC);
			HttpResponse<String> redriven = send(this.port, "POST", path + "?limit=1&partition="
					+ broken.get("partition").asInt() + "&fromOffset=" + broken.get("offset").asLong());
			assertThat(redriven.statusCode()).isEqualTo(200);
			JsonNode report = json.readTree(redriven.body());
			assertThat(report.get("dryRun").asBoolean()).isFalse();
			assertThat(report.get("sent").asInt()).isEqualTo(1);
			assertThat(report.get("records").get(0).get("messageId").asString()).isEqualTo(messageId);
			// A poison order, or one without an id: the listener fails it again, and it is dead-lettered again
			await().atMost(Duration.ofSeconds(30))
				.untilAsserted(() -> assertThat(KafkaOffsets.endOffsets(this.admin, KafkaFlow.DEAD_LETTER_TOPIC))
					.isEqualTo(deadLettersEnd + 1));
			assertThat(json.readTree(send(this.port, "GET", path + "?limit=200").body())
				.get("records")
				.valueStream()
				.filter((record) -> messageId.equals(record.get("messageId").asString(null))))
				.hasSize(2);
		}

		@Test
		void deadLettersOfAnUnknownTransportAreNotFound() throws Exception {
			assertThat(send(this.port, "GET", "/actuator/idempotency/dead-letters/sqs/orders").statusCode())
				.isEqualTo(404);
			JsonNode overview = json.readTree(send(this.port, "GET", "/actuator/idempotency").body());
			assertThat(overview.get("deadLetters").valueStream().map(JsonNode::asString)).contains("kafka");
		}

	}

	@Nested
	@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT,
			properties = { DEMO, "management.endpoints.web.exposure.include=health,idempotency", "demo.orders=20",
					"demo.payments.count=5", "demo.redis-stream.enabled=false",
					"spring.datasource.url=jdbc:h2:mem:points-endpoint-reads;DB_CLOSE_DELAY=-1" })
	class WithTheDefaultAccess {

		@LocalServerPort
		private int port;

		@Autowired
		private JdbcTemplate jdbc;

		@Autowired
		private DemoRunner demo;

		@Test
		void theDemoPrintsTheStoresHealthAndOneKeyLookupAsTheEndpointAnswersThem() throws Exception {
			List<String> report = this.demo.operationsReport();
			assertThat(report).anySatisfy((line) -> assertThat(line).contains("store health: UP {\"store\":\"jdbc\""));
			String orderId = this.demo.orders().unique().get(0).orderId();
			int request = report.indexOf("  GET " + keyPath(orderId) + " -> 200");
			assertThat(request).as("the lookup's request line in %s", report).isNotNegative();
			// What the operator reads is the JSON the endpoint answers over HTTP, not a Java toString().
			JsonNode printed = json.readTree(report.get(request + 1));
			assertThat(printed.at("/stores/idempotencyStore/status").asString()).isEqualTo("COMPLETED");
			assertThat(printed).isEqualTo(json.readTree(send(this.port, "GET", keyPath(orderId)).body()));
		}

		@Test
		void readsAnswer() throws Exception {
			assertThat(send(this.port, "GET", "/actuator/idempotency").statusCode()).isEqualTo(200);
			assertThat(send(this.port, "GET", keyPath(processedOrderId(this.jdbc))).statusCode()).isEqualTo(200);
			assertThat(send(this.port, "GET", "/actuator/idempotency/outbox/dead").statusCode()).isEqualTo(200);
			assertThat(send(this.port, "GET", "/actuator/idempotency/parked").statusCode()).isEqualTo(200);
			assertThat(send(this.port, "GET", "/actuator/idempotency/dead-letters/kafka/" + KafkaFlow.TOPIC)
				.statusCode()).isEqualTo(200);
		}

		@Test
		void writesAreRefusedAndChangeNothing() throws Exception {
			String orderId = processedOrderId(this.jdbc);
			insertRecord(this.jdbc, "manual", "order-9", "PARKED");
			assertRefused(send(this.port, "DELETE", keyPath(orderId)));
			assertRefused(send(this.port, "DELETE", "/actuator/idempotency/parked/manual/order-9"));
			assertRefused(send(this.port, "POST", "/actuator/idempotency/parked/manual/order-9"));
			assertRefused(send(this.port, "POST", "/actuator/idempotency/outbox/dead"));
			assertRefused(send(this.port, "POST", "/actuator/idempotency/outbox/dead/some-id"));
			assertRefused(send(this.port, "POST", "/actuator/idempotency/dead-letters/kafka/" + KafkaFlow.TOPIC));
			assertThat(send(this.port, "GET", keyPath(orderId)).statusCode()).isEqualTo(200);
			assertThat(this.jdbc.queryForObject(
					"SELECT status FROM idempotency_record WHERE namespace = 'manual' AND idempotency_key = 'order-9'",
					String.class))
				.isEqualTo("PARKED");
		}

		private static void assertRefused(HttpResponse<String> response) {
			// Not mapped: the path answers GET only.
			assertThat(response.statusCode()).as(response.request().method() + " " + response.request().uri())
				.isIn(404, 405);
		}

	}

	private static String processedOrderId(JdbcTemplate jdbc) {
		return jdbc.queryForObject("SELECT idempotency_key FROM idempotency_record WHERE namespace = ?"
				+ " AND status = 'COMPLETED' ORDER BY idempotency_key FETCH FIRST 1 ROWS ONLY", String.class,
				KafkaFlow.GROUP);
	}

	private static void insertRecord(JdbcTemplate jdbc, String namespace, String key, String status) {
		Instant now = Instant.now();
		jdbc.update("INSERT INTO idempotency_record (namespace, idempotency_key, status, created_at, expires_at,"
				+ " attempts) VALUES (?, ?, ?, ?, ?, 1)", namespace, key, status, Timestamp.from(now),
				Timestamp.from(now.plus(Duration.ofDays(1))));
	}

	private static String keyPath(String orderId) {
		return "/actuator/idempotency/keys/" + KafkaFlow.GROUP + "/" + encode(orderId);
	}

	private static String encode(String segment) {
		return URLEncoder.encode(segment, StandardCharsets.UTF_8).replace("+", "%20");
	}

	private static HttpResponse<String> send(int port, String method, String path) throws Exception {
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
			.header("Accept", "application/json")
			.method(method, HttpRequest.BodyPublishers.noBody())
			.timeout(Duration.ofSeconds(10));
		if ("POST".equals(method)) {
			// Actuator's write operations consume JSON, even without a body: no Content-Type is a 415.
			request.header("Content-Type", "application/json");
		}
		return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
	}

}
