package dev.idempotency.http;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.http.HttpTestApplication.Executions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.jdbc.DataSourceBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.ClassPathResource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.jdbc.datasource.init.ResourceDatabasePopulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What a request's fingerprint and stored response cost on the JDBC store in transactional mode,
 * and that recording them together before commit keeps concurrent requests right: the statements a
 * first request sends (counted by a {@code DataSource} that logs every prepared statement), and a
 * request that reuses the key of one still running, with another body, waiting on its lock and then
 * refused. Its own application (the {@link HttpTestApplication} and the statement log) and schema,
 * so that the shared HTTP tests keep theirs.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractHttpKeyDetailsJdbcIntegrationTests {

	private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

	private HikariDataSource dataSource;

	private ConfigurableApplicationContext context;

	private Executions executions;

	private StatementLog statements;

	private int port;

	/** Spring Boot properties of the database under test. */
	protected abstract String[] storeProperties();

	/** The platform of the schema scripts, e.g. {@code postgresql}. */
	protected abstract String platform();

	/** How many sessions of this database wait for a row lock now. */
	protected abstract int lockWaits(JdbcTemplate jdbc);

	@BeforeAll
	void startApplication() {
		String url = property("spring.datasource.url=");
		this.dataSource = DataSourceBuilder.create()
			.type(HikariDataSource.class)
			.url(url)
			.username(property("spring.datasource.username="))
			.build();
		new ResourceDatabasePopulator(
				new ClassPathResource("dev/idempotency/store/jdbc/schema-drop-" + platform() + ".sql"),
				new ClassPathResource("dev/idempotency/store/jdbc/schema-" + platform() + ".sql"))
			.execute(this.dataSource);
		JdbcTemplate jdbc = new JdbcTemplate(this.dataSource);
		jdbc.execute("DROP TABLE IF EXISTS http_payment");
		jdbc.execute("CREATE TABLE http_payment (reference VARCHAR(100) NOT NULL, amount BIGINT NOT NULL)");
		List<String> properties = new ArrayList<>(List.of(storeProperties()));
		properties.add("server.port=0");
		properties.add("idempotency.jdbc.purge.enabled=false");
		this.context = new SpringApplicationBuilder(HttpTestApplication.class, StatementLogConfiguration.class)
			.web(WebApplicationType.SERVLET)
			.properties(properties.toArray(String[]::new))
			.run();
		this.executions = this.context.getBean(Executions.class);
		this.statements = this.context.getBean(StatementLog.class);
		this.port = Integer.parseInt(this.context.getEnvironment().getRequiredProperty("local.server.port"));
	}

	@AfterAll
	void stopApplication() {
		if (this.context != null) {
			this.context.close();
		}
		if (this.dataSource != null) {
			this.dataSource.close();
		}
	}

	@Test
	void aFirstRequestSendsTheClaimTheBusinessWriteAndOneUpdateOfFingerprintAndResponse() throws Exception {
		String reference = reference();
		this.statements.clear();

		HttpResponse<String> created = post(UUID.randomUUID().toString(), payment(reference, 5));

		assertThat(created.statusCode()).isEqualTo(201);
		List<String> sent = this.statements.on("idempotency_record", "http_payment");
		assertThat(sent).as("statements of a first request").hasSize(3);
		assertThat(sent.get(0)).startsWith("INSERT").contains("idempotency_record");
		assertThat(sent.get(1)).startsWith("INSERT INTO http_payment");
		assertThat(sent.get(2)).startsWith("UPDATE idempotency_record SET fingerprint = ?, result_body = ?");
	}

	@Test
	void aRequestWithTheKeyOfOneStillRunningAndAnotherBodyWaitsForItThenIsRefusedWith422() throws Exception {
		String reference = reference();
		String key = UUID.randomUUID().toString();
		CountDownLatch gate = new CountDownLatch(1);
		CountDownLatch entered = new CountDownLatch(1);
		this.executions.gates.put(reference, gate);
		this.executions.entered.put(reference, entered);
		JdbcTemplate jdbc = new JdbcTemplate(this.dataSource);
		int waitingBefore = lockWaits(jdbc);
		ExecutorService executor = Executors.newFixedThreadPool(3);
		try {
			Future<HttpResponse<String>> first = executor.submit(() -> post(key, payment(reference, 5)));
			assertThat(entered.await(30, TimeUnit.SECONDS)).isTrue();
			Future<HttpResponse<String>> otherBody = executor.submit(() -> post(key, payment(reference, 6)));
			Future<HttpResponse<String>> sameBody = executor.submit(() -> post(key, payment(reference, 5)));
			// Both claims wait on the first request's uncommitted record: nothing of it is visible yet.
			await().atMost(Duration.ofSeconds(30)).until(() -> lockWaits(jdbc) >= waitingBefore + 2);
			assertThat(otherBody.isDone()).isFalse();
			gate.countDown();

			HttpResponse<String> executed = first.get(30, TimeUnit.SECONDS);
			HttpResponse<String> refused = otherBody.get(30, TimeUnit.SECONDS);
			HttpResponse<String> replayed = sameBody.get(30, TimeUnit.SECONDS);

			assertThat(executed.statusCode()).isEqualTo(201);
			assertThat(refused.statusCode()).isEqualTo(422);
			assertThat(refused.headers().firstValue("Content-Type")).hasValue("application/problem+json");
			assertThat(refused.body()).contains("key-reused");
			assertThat(replayed.statusCode()).isEqualTo(201);
			assertThat(replayed.headers().firstValue("Idempotent-Replayed")).hasValue("true");
			assertThat(replayed.body()).isEqualTo(executed.body());
			assertThat(this.executions.of(reference)).isEqualTo(1);
		}
		finally {
			gate.countDown();
			executor.shutdownNow();
		}
	}

	@Test
	void aLeasedRequestRecordsItsFingerprintWhenClaimedSoThatAnotherBodyIsRefusedWhileItRuns() throws Exception {
		String reference = reference();
		String key = UUID.randomUUID().toString();
		CountDownLatch gate = new CountDownLatch(1);
		CountDownLatch entered = new CountDownLatch(1);
		this.executions.gates.put(reference, gate);
		this.executions.entered.put(reference, entered);
		ExecutorService executor = Executors.newSingleThreadExecutor();
		try {
			Future<HttpResponse<String>> first = executor.submit(() -> postTo("/charges", key, payment(reference, 9)));
			assertThat(entered.await(30, TimeUnit.SECONDS)).isTrue();

			assertThat(new JdbcTemplate(this.dataSource).queryForObject(
					"SELECT COUNT(*) FROM idempotency_record WHERE idempotency_key = ? AND fingerprint IS NOT NULL",
					Integer.class, "alice:" + key))
				.as("committed with the claim").isOne();
			assertThat(postTo("/charges", key, payment(reference, 10)).statusCode()).isEqualTo(409);
			gate.countDown();
			assertThat(first.get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
			HttpResponse<String> after = postTo("/charges", key, payment(reference, 10));
			assertThat(after.statusCode()).isEqualTo(422);
			assertThat(after.body()).contains("key-reused");
			assertThat(this.executions.of(reference)).isEqualTo(1);
		}
		finally {
			gate.countDown();
			executor.shutdownNow();
		}
	}

	private String property(String prefix) {
		for (String property : storeProperties()) {
			if (property.startsWith(prefix)) {
				return property.substring(prefix.length());
			}
		}
		throw new IllegalStateException("No " + prefix);
	}

	private HttpResponse<String> post(String key, String body) throws Exception {
		return postTo("/payments", key, body);
	}

	private HttpResponse<String> postTo(String path, String key, String body) throws Exception {
		HttpRequest request = HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path))
			.timeout(Duration.ofSeconds(60))
			.header("Content-Type", "application/json")
			.header("Authorization",
					"Basic " + Base64.getEncoder().encodeToString("alice:pw".getBytes(StandardCharsets.UTF_8)))
			.header("Idempotency-Key", key)
			.POST(HttpRequest.BodyPublishers.ofString(body))
			.build();
		return this.client.send(request, HttpResponse.BodyHandlers.ofString());
	}

	private static String payment(String reference, long amount) {
		return "{\"reference\":\"" + reference + "\",\"amount\":" + amount + "}";
	}

	private static String reference() {
		return "ref-" + UUID.randomUUID();
	}

	/** The application's {@code DataSource} wrapped so that it logs the SQL of every prepared statement. */
	@Configuration(proxyBeanMethods = false)
	static class StatementLogConfiguration {

		@Bean
		static StatementLog statementLog() {
			return new StatementLog();
		}

	}

	/** Wraps every {@code DataSource} bean; keeps the SQL its connections prepare, in order. */
	static class StatementLog implements BeanPostProcessor {

		private final List<String> sql = new CopyOnWriteArrayList<>();

		void clear() {
			this.sql.clear();
		}

		/** The statements prepared since {@link #clear()} that name one of {@code tables}. */
		List<String> on(String... tables) {
			return this.sql.stream()
				.filter((statement) -> List.of(tables).stream().anyMatch(statement::contains))
				.toList();
		}

		@Override
		public Object postProcessAfterInitialization(Object bean, String beanName) {
			if (bean instanceof DataSource dataSource && !(bean instanceof DelegatingDataSource)) {
				return new DelegatingDataSource(dataSource) {

					@Override
					public Connection getConnection() throws SQLException {
						return logging(super.getConnection());
					}

				};
			}
			return bean;
		}

		private Connection logging(Connection connection) {
			return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] { Connection.class },
					(proxy, method, args) -> {
						if (method.getName().equals("prepareStatement") && args != null
								&& args[0] instanceof String sql) {
							this.sql.add(sql);
						}
						try {
							return method.invoke(connection, args);
						}
						catch (InvocationTargetException ex) {
							throw ex.getTargetException();
						}
					});
		}

	}

}
