package dev.idempotency.sample;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.idempotency.kafka.share.metrics.KafkaShareMeters;
import dev.idempotency.metrics.IdempotencyMeters;
import dev.idempotency.outbox.metrics.OutboxMeters;
import dev.idempotency.redis.stream.metrics.RedisStreamMeters;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.ActiveProfiles;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The Grafana dashboard ({@code docs/grafana/idempotency-dashboard.json}) and the Prometheus alert
 * rules ({@code docs/prometheus/idempotency-alerts.yml}) against a running sample app: every metric
 * name their PromQL uses must be in {@code /actuator/prometheus}, scraped over HTTP, so that a renamed
 * meter, a wrong suffix or a histogram that is not published fails here and not on an operator's
 * screen.
 * <p>
 * The demo runs with every feature that has meters: the outbox, Kafka, a Kafka share group, the Redis Stream at
 * {@code localhost:6379}, the {@code filters} profile (with a Bloom filter small enough to produce
 * false positives), the leased payments flow and its reconciler, and purges every second.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "spring.main.web-application-type=servlet",
				"management.endpoints.web.exposure.include=health,prometheus", "demo.orders=100",
				"demo.payments.count=20", "demo.redis-stream.enabled=true", "demo.kafka-share.enabled=true",
				"spring.datasource.url=jdbc:h2:mem:points-drift;DB_CLOSE_DELAY=-1",
				"idempotency.filter.recent.key-prefix=demo-drift-test:${random.uuid}:",
				"idempotency.filter.bloom.expected-insertions=50", "idempotency.filter.bloom.false-positive-rate=0.3",
				"idempotency.jdbc.purge.interval=1s", "idempotency.outbox.purge.interval=1s" })
@ActiveProfiles("filters")
class MetricsDashboardDriftIntegrationTests {

	private static final Path DASHBOARD = Path.of("..", "docs", "grafana", "idempotency-dashboard.json");

	private static final Path ALERT_RULES = Path.of("..", "docs", "prometheus", "idempotency-alerts.yml");

	private static final Pattern METRIC_NAME = Pattern.compile("idempotency_[a-z_]+");

	/** The classes that name the starter's meters: the engine's and each technology's. */
	private static final List<Class<?>> METER_NAMES = List.of(IdempotencyMeters.class, RedisStreamMeters.class,
			OutboxMeters.class, KafkaShareMeters.class);

	/** Suffixes Micrometer's Prometheus registry adds to a meter's name, by meter type. */
	private static final List<String> SUFFIXES = List.of("", "_total", "_seconds", "_bytes", "_seconds_count",
			"_seconds_sum", "_seconds_max", "_seconds_bucket");

	/**
	 * Metrics the demo cannot produce: each is registered at its first event, and the demo's
	 * infrastructure does not fail. Each must still be a meter of the starter ({@link #METER_NAMES}).
	 */
	private static final Map<String, String> NOT_PRODUCED_BY_THE_DEMO = Map.of(
			// Registered at the first pause by fail-closed; the demo's store never fails.
			"idempotency_listener_paused", "no fail-closed pause",
			"idempotency_listener_pauses_total", "no fail-closed pause",
			// Registered at the first failed send or dead row; the demo's broker and Redis answer.
			"idempotency_outbox_failed_total", "no failed outbox send",
			"idempotency_outbox_dead_total", "no dead outbox row",
			// Registered when pending entries are trimmed or a group disappears; the demo does neither.
			"idempotency_stream_trimmed_total", "no trimmed pending entry",
			"idempotency_stream_group_recreated_total", "no NOGROUP");

	private final HttpClient http = HttpClient.newHttpClient();

	@LocalServerPort
	private int port;

	@Test
	void everyMetricTheDashboardAndTheAlertRulesUseIsScraped() throws IOException {
		Set<String> used = new TreeSet<>(metricNames(dashboardQueries()));
		used.addAll(metricNames(alertExpressions()));
		assertThat(used).isNotEmpty();
		Set<String> expected = new TreeSet<>(used);
		expected.removeAll(NOT_PRODUCED_BY_THE_DEMO.keySet());
		// Gauges of the stream and the reconciler are registered at their first measurement, which
		// runs on its own schedule; the purge's first run starts within its interval.
		await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
			Set<String> missing = new TreeSet<>(expected);
			missing.removeAll(scrapedNames());
			assertThat(missing).as("metrics used by the dashboard or the alert rules but not in /actuator/prometheus")
				.isEmpty();
		});
		assertThat(used).as("allow-listed metrics the dashboard or the rules use")
			.containsAll(NOT_PRODUCED_BY_THE_DEMO.keySet());
	}

	@Test
	void everyAllowListedMetricIsAMeterOfTheStarter() {
		Set<String> meters = meterNames();
		assertThat(NOT_PRODUCED_BY_THE_DEMO.keySet())
			.allSatisfy((name) -> assertThat(meters).as(name).contains(withoutSuffix(name, meters)));
	}

	@Test
	void everyMeterOfTheStarterHasAPanel() throws IOException {
		Set<String> used = metricNames(dashboardQueries());
		assertThat(meterNames()).allSatisfy((meter) -> assertThat(SUFFIXES.stream().map((suffix) -> meter + suffix))
			.as(meter)
			.containsAnyElementsOf(used));
	}

	@Test
	@SuppressWarnings("unchecked")
	void everyAlertRuleHasADurationASeverityAndAnnotations() throws IOException {
		List<Map<String, Object>> rules = alertRules();
		assertThat(rules).hasSizeGreaterThanOrEqualTo(7).allSatisfy((rule) -> {
			assertThat(rule).containsKeys("alert", "expr", "for", "labels", "annotations");
			assertThat((Map<String, Object>) rule.get("labels")).containsKey("severity");
			assertThat((Map<String, Object>) rule.get("annotations")).containsKeys("summary", "description");
		});
	}

	@Test
	void healthIsExposedOverHttp() throws Exception {
		HttpResponse<String> response = get("/actuator/health", "application/json");
		assertThat(response.statusCode()).isEqualTo(200);
		assertThat(response.body()).contains("\"status\":\"UP\"");
	}

	private Set<String> scrapedNames() throws Exception {
		HttpResponse<String> response = get("/actuator/prometheus", "text/plain");
		assertThat(response.statusCode()).isEqualTo(200);
		Set<String> names = new TreeSet<>();
		for (String line : response.body().split("\n")) {
			if (!line.startsWith("#") && !line.isBlank()) {
				names.add(line.split("[{ ]", 2)[0]);
			}
		}
		return names;
	}

	private HttpResponse<String> get(String path, String accept) throws Exception {
		HttpRequest request = HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path))
			.header("Accept", accept)
			.timeout(Duration.ofSeconds(10))
			.build();
		return this.http.send(request, HttpResponse.BodyHandlers.ofString());
	}

	/** PromQL of the dashboard's panels and template variables (not titles or descriptions). */
	private static List<String> dashboardQueries() throws IOException {
		List<String> queries = new ArrayList<>();
		collectQueries(JsonMapper.shared().readTree(Files.readString(DASHBOARD)), queries);
		assertThat(queries).isNotEmpty();
		return queries;
	}

	private static void collectQueries(JsonNode node, List<String> queries) {
		for (Map.Entry<String, JsonNode> property : node.properties()) {
			if (Set.of("expr", "query", "definition").contains(property.getKey()) && property.getValue().isString()) {
				queries.add(property.getValue().stringValue());
			}
		}
		for (JsonNode child : node) {
			collectQueries(child, queries);
		}
	}

	private static List<String> alertExpressions() throws IOException {
		return alertRules().stream().map((rule) -> (String) rule.get("expr")).toList();
	}

	@SuppressWarnings("unchecked")
	private static List<Map<String, Object>> alertRules() throws IOException {
		Map<String, Object> file = new Yaml().load(Files.readString(ALERT_RULES));
		List<Map<String, Object>> rules = new ArrayList<>();
		for (Map<String, Object> group : (List<Map<String, Object>>) file.get("groups")) {
			rules.addAll((List<Map<String, Object>>) group.get("rules"));
		}
		return rules;
	}

	private static Set<String> metricNames(List<String> expressions) {
		Set<String> names = new TreeSet<>();
		for (String expression : expressions) {
			Matcher matcher = METRIC_NAME.matcher(expression);
			while (matcher.find()) {
				names.add(matcher.group());
			}
		}
		return names;
	}

	/**
	 * The starter's meter names (the engine's and each technology's) in Prometheus form, without the
	 * suffixes the registry adds.
	 */
	private static Set<String> meterNames() {
		Set<String> names = new TreeSet<>();
		for (Class<?> meters : METER_NAMES) {
			for (Field field : meters.getFields()) {
				if (Modifier.isStatic(field.getModifiers()) && field.getType() == String.class) {
					String value = constant(field);
					if (value.startsWith("idempotency.")) {
						names.add(value.replace('.', '_'));
					}
				}
			}
		}
		assertThat(names).isNotEmpty();
		return names;
	}

	private static String withoutSuffix(String name, Set<String> meters) {
		for (String suffix : SUFFIXES) {
			if (!suffix.isEmpty() && name.endsWith(suffix)
					&& meters.contains(name.substring(0, name.length() - suffix.length()))) {
				return name.substring(0, name.length() - suffix.length());
			}
		}
		return name;
	}

	private static String constant(Field field) {
		try {
			return (String) field.get(null);
		}
		catch (IllegalAccessException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
