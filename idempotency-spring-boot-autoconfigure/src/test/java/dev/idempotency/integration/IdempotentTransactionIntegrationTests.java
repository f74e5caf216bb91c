package dev.idempotency.integration;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.idempotency.annotation.Idempotent;
import dev.idempotency.core.DeliveryContext;
import dev.idempotency.core.DeliveryContextHolder;
import dev.idempotency.testsupport.TestDatabases;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Transaction boundaries on the real PostgreSQL: acknowledgement strictly after commit (checked from
 * a separate connection at the moment of the ack), rollback takes the dedup row with it, a duplicate
 * leaves an open transaction usable, and {@code @Transactional} composes in both advisor orders. The
 * same tests run on MariaDB in {@link IdempotentTransactionMariaDbIntegrationTests}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class IdempotentTransactionIntegrationTests {

	/** The default: the @Idempotent advisor runs outside @Transactional and owns the transaction. */
	ConfigurableApplicationContext idempotentOutside;

	/** @Transactional's advisor ordered first: it opens the transaction, @Idempotent joins it. */
	private ConfigurableApplicationContext transactionalOutside;

	JdbcTemplate jdbc;

	/** A connection outside every Spring transaction: sees only committed data. */
	JdbcTemplate committedView;

	private final List<Map<String, Integer>> acknowledgements = new ArrayList<>();

	/** Spring Boot properties that point the DataSource at the database under test: URL, then user. */
	String[] dataSourceProperties() {
		return TestDatabases.postgresProperties();
	}

	@BeforeAll
	void start() {
		this.idempotentOutside = start(TestApplication.class);
		this.transactionalOutside = start(TransactionalFirstApplication.class);
		this.jdbc = this.idempotentOutside.getBean(JdbcTemplate.class);
		String[] properties = dataSourceProperties();
		this.committedView = new JdbcTemplate(new DriverManagerDataSource(properties[0].split("=", 2)[1],
				properties[1].split("=", 2)[1], ""));
		this.jdbc.execute("DROP TABLE IF EXISTS it_effect");
		this.jdbc.execute("CREATE TABLE it_effect (order_id VARCHAR(64) NOT NULL)");
	}

	ConfigurableApplicationContext start(Class<?> application, String... extraProperties) {
		List<String> properties = new ArrayList<>(List.of(dataSourceProperties()));
		properties.addAll(List.of(extraProperties));
		properties.add("idempotency.jdbc.initialize-schema=always");
		properties.add("idempotency.jdbc.purge.enabled=false");
		return new SpringApplicationBuilder(application).web(WebApplicationType.NONE)
			.properties(properties.toArray(String[]::new))
			.run();
	}

	@AfterAll
	void stop() {
		this.idempotentOutside.close();
		this.transactionalOutside.close();
	}

	@BeforeEach
	void bindDelivery() {
		this.jdbc.update("DELETE FROM it_effect");
		this.jdbc.update("DELETE FROM idempotency_record WHERE namespace LIKE 'it-tx%'");
		this.acknowledgements.clear();
		DeliveryContextHolder.set(new DeliveryContext("message-1", null, Map.of(), this::recordAcknowledgement,
				List.of()));
	}

	@AfterEach
	void unbindDelivery() {
		DeliveryContextHolder.clear();
	}

	/** What another connection sees at the moment the delivery is acknowledged. */
	private void recordAcknowledgement() {
		this.acknowledgements.add(Map.of("effects", committedEffects(), "records", committedRecords()));
	}

	Handler handler() {
		return this.idempotentOutside.getBean(Handler.class);
	}

	int committedEffects() {
		return this.committedView.queryForObject("SELECT COUNT(*) FROM it_effect", Integer.class);
	}

	int committedRecords() {
		return this.committedView.queryForObject("SELECT COUNT(*) FROM idempotency_record WHERE namespace LIKE 'it-tx%'",
				Integer.class);
	}

	/** The committed effects whose order id is {@code LIKE pattern}, sorted. */
	List<String> committedOrders(String pattern) {
		return this.committedView.queryForList("SELECT order_id FROM it_effect WHERE order_id LIKE ? ORDER BY order_id",
				String.class, pattern);
	}

	@Test
	void acknowledgementHappensOnlyOnceTheEffectAndTheDedupRowAreCommitted() {
		handler().handle("order-1", false);
		assertThat(this.acknowledgements).containsExactly(Map.of("effects", 1, "records", 1));
	}

	@Test
	void failureRollsBackTheDedupRowAndIsNeverAcknowledged() {
		assertThatIllegalStateException().isThrownBy(() -> handler().handle("order-2", true));
		assertThat(this.acknowledgements).isEmpty();
		assertThat(committedRecords()).isZero();
		assertThat(committedEffects()).isZero();

		handler().handle("order-2", false);
		assertThat(committedEffects()).isEqualTo(1);
		assertThat(this.acknowledgements).hasSize(1);
	}

	@Test
	void duplicateIsAcknowledgedAndSkipped() {
		handler().handle("order-3", false);
		handler().handle("order-3", false);
		assertThat(committedEffects()).isEqualTo(1);
		assertThat(this.acknowledgements).hasSize(2);
	}

	@Test
	void rollbackOfAnOuterTransactionTakesTheDedupRowWithItAndAcknowledgesNothing() {
		Caller caller = this.idempotentOutside.getBean(Caller.class);
		assertThatIllegalStateException().isThrownBy(() -> caller.handleThenFail("order-4"));
		assertThat(this.acknowledgements).isEmpty();
		assertThat(committedRecords()).isZero();

		handler().handle("order-4", false);
		assertThat(committedEffects()).isEqualTo(1);
	}

	@Test
	void duplicateInsideAnOpenTransactionLeavesItUsable() {
		handler().handle("order-5", false);
		this.idempotentOutside.getBean(Caller.class).handleDuplicateThenWrite("order-5");
		assertThat(committedOrders("%")).containsExactly("order-5", "written-after-duplicate");
	}

	@Test
	void idempotentAdvisorOutsideTransactionalOpensTheTransaction() {
		String transaction = this.idempotentOutside.getBean(TransactionalHandler.class).handle("order-6", false);
		assertThat(transaction).startsWith("@Idempotent");
		assertThat(this.acknowledgements).containsExactly(Map.of("effects", 1, "records", 1));
	}

	@Test
	void idempotentAdvisorInsideTransactionalJoinsItsTransaction() {
		String transaction = this.transactionalOutside.getBean(TransactionalHandler.class).handle("order-7", false);
		assertThat(transaction).endsWith("TransactionalHandler.handle");
		assertThat(this.acknowledgements).containsExactly(Map.of("effects", 1, "records", 1));
	}

	@Test
	void failureRollsBackBothInEitherAdvisorOrder() {
		for (ConfigurableApplicationContext context : List.of(this.idempotentOutside, this.transactionalOutside)) {
			TransactionalHandler handler = context.getBean(TransactionalHandler.class);
			assertThatIllegalStateException().isThrownBy(() -> handler.handle("order-8", true));
		}
		assertThat(committedEffects()).isZero();
		assertThat(committedRecords()).isZero();
		assertThat(this.acknowledgements).isEmpty();
	}

	@Test
	void duplicateIsSkippedInEitherAdvisorOrder() {
		this.idempotentOutside.getBean(TransactionalHandler.class).handle("order-9", false);
		this.transactionalOutside.getBean(TransactionalHandler.class).handle("order-9", false);
		assertThat(committedEffects()).isEqualTo(1);
		assertThat(this.acknowledgements).hasSize(2);
	}

	static class Handler {

		private final JdbcTemplate jdbc;

		Handler(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
		}

		@Idempotent(key = "#orderId", namespace = "it-tx")
		public void handle(String orderId, boolean fail) {
			this.jdbc.update("INSERT INTO it_effect (order_id) VALUES (?)", orderId);
			if (fail) {
				throw new IllegalStateException("listener failed");
			}
		}

	}

	static class TransactionalHandler {

		private final JdbcTemplate jdbc;

		TransactionalHandler(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
		}

		@Transactional
		@Idempotent(key = "#orderId", namespace = "it-tx-both")
		public String handle(String orderId, boolean fail) {
			this.jdbc.update("INSERT INTO it_effect (order_id) VALUES (?)", orderId);
			if (fail) {
				throw new IllegalStateException("listener failed");
			}
			return TransactionSynchronizationManager.getCurrentTransactionName();
		}

	}

	static class Caller {

		private final Handler handler;

		private final JdbcTemplate jdbc;

		Caller(Handler handler, JdbcTemplate jdbc) {
			this.handler = handler;
			this.jdbc = jdbc;
		}

		@Transactional
		public void handleThenFail(String orderId) {
			this.handler.handle(orderId, false);
			throw new IllegalStateException("caller failed after the listener returned");
		}

		@Transactional
		public void handleDuplicateThenWrite(String orderId) {
			this.handler.handle(orderId, false);
			this.jdbc.update("INSERT INTO it_effect (order_id) VALUES ('written-after-duplicate')");
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class Handlers {

		@Bean
		Handler handler(JdbcTemplate jdbc) {
			return new Handler(jdbc);
		}

		@Bean
		TransactionalHandler transactionalHandler(JdbcTemplate jdbc) {
			return new TransactionalHandler(jdbc);
		}

		@Bean
		Caller caller(Handler handler, JdbcTemplate jdbc) {
			return new Caller(handler, jdbc);
		}

	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import(Handlers.class)
	static class TestApplication {

	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@EnableTransactionManagement(order = 0)
	@Import(Handlers.class)
	static class TransactionalFirstApplication {

	}

}
