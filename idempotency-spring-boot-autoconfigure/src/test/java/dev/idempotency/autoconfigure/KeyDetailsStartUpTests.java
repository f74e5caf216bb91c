package dev.idempotency.autoconfigure;

import java.time.Duration;
import java.util.List;

import javax.sql.DataSource;

import dev.idempotency.annotation.Idempotent;
import dev.idempotency.annotation.OnDuplicate;
import dev.idempotency.autoconfigure.store.IdempotencyStoreAutoConfiguration;
import dev.idempotency.core.ClaimResult;
import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.IdempotencyKeyConflictException;
import dev.idempotency.core.IdempotencyStore;
import dev.idempotency.kafka.autoconfigure.IdempotencyKafkaTransportAutoConfiguration;
import dev.idempotency.store.jdbc.autoconfigure.IdempotencyJdbcStoreAutoConfiguration;
import dev.idempotency.store.redis.autoconfigure.IdempotencyRedisStoreAutoConfiguration;
import dev.idempotency.support.KeyDetailsCodec;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceInitializationAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.kafka.annotation.KafkaListener;

import static dev.idempotency.testsupport.Causes.causeOfType;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Fingerprints and stored results in an application: the auto-configured codec, the properties, and
 * the start-up checks of methods that use them.
 */
class KeyDetailsStartUpTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, TransactionAutoConfiguration.class,
				DataSourceAutoConfiguration.class, DataSourceInitializationAutoConfiguration.class,
				IdempotencyStoreAutoConfiguration.class, IdempotencyJdbcStoreAutoConfiguration.class,
				IdempotencyRedisStoreAutoConfiguration.class, IdempotencyAutoConfiguration.class,
				IdempotencyKafkaTransportAutoConfiguration.class))
		.withPropertyValues("spring.datasource.generate-unique-name=true")
		.withUserConfiguration(JdbcTransactionManagerConfiguration.class);

	@Test
	void fingerprintsAndResultsAreRecordedInTheShippedJdbcSchema() {
		this.contextRunner.withBean(PaymentHandler.class).run((context) -> {
			assertThat(context).hasNotFailed().hasSingleBean(KeyDetailsCodec.class);
			PaymentHandler handler = context.getBean(PaymentHandler.class);
			assertThat(handler.pay(new Payment("p-1", 10))).isEqualTo("paid p-1 #1");
			assertThat(handler.pay(new Payment("p-1", 10))).isEqualTo("paid p-1 #1");
			assertThatExceptionOfType(IdempotencyKeyConflictException.class)
				.isThrownBy(() -> handler.pay(new Payment("p-1", 11)));
			assertThat(handler.calls()).isOne();
			assertThat(new JdbcTemplate(context.getBean(DataSource.class)).queryForMap(
					"SELECT fingerprint, result_body FROM idempotency_record WHERE idempotency_key = 'p-1'"))
				.containsEntry("RESULT_BODY", "\"paid p-1 #1\"")
				.hasEntrySatisfying("FINGERPRINT", (fingerprint) -> assertThat((String) fingerprint).hasSize(64));
		});
	}

	@Test
	void defaultFingerprintAppliesToEveryMethodThatSetsNone() {
		this.contextRunner.withPropertyValues("idempotency.fingerprint=#root.args[0]")
			.withBean(PlainHandler.class)
			.run((context) -> {
				PlainHandler handler = context.getBean(PlainHandler.class);
				handler.handle(new Payment("p-1", 1));
				assertThatExceptionOfType(IdempotencyKeyConflictException.class)
					.isThrownBy(() -> handler.handle(new Payment("p-1", 2)));
			});
	}

	@Test
	void storedResultMaxSizeIsBound() {
		this.contextRunner.withPropertyValues("idempotency.stored-result.max-size=1MB").run((context) -> {
			assertThat(context.getBean(IdempotencyProperties.class).getStoredResult().getMaxSize().toBytes())
				.isEqualTo(1024 * 1024);
		});
	}

	@Test
	void withoutJacksonAMethodThatUsesFingerprintsFailsStartUp() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(JsonMapper.class))
			.withPropertyValues("spring.aop.proxy-target-class=false")
			.withBean(PaymentHandler.class)
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(causeOfType(context.getStartupFailure(), IllegalStateException.class))
					.hasMessageContaining("#pay]")
					.hasMessageContaining("Jackson 3 (tools.jackson.core:jackson-databind)");
			});
	}

	@Test
	void withoutJacksonMethodsThatUseNeitherStart() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(JsonMapper.class))
			.withPropertyValues("spring.aop.proxy-target-class=false")
			.withBean(PlainHandler.class)
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(KeyDetailsCodec.class));
	}

	@Test
	void storeThatDoesNotRecordKeyDetailsFailsStartUp() {
		this.contextRunner.withBean(IdempotencyStore.class, KeylessStore::new)
			.withBean(PaymentHandler.class)
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(causeOfType(context.getStartupFailure(), IllegalStateException.class))
					.hasMessageContaining("store 'keyless'")
					.hasMessageContaining("does not record fingerprints or results");
			});
	}

	@Test
	void storeThatDoesNotRecordKeyDetailsServesMethodsThatUseNeither() {
		this.contextRunner.withBean(IdempotencyStore.class, KeylessStore::new)
			.withBean(PlainHandler.class)
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void batchListenerThatUsesFingerprintsFailsStartUp() {
		this.contextRunner.withBean(BatchHandler.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(causeOfType(context.getStartupFailure(), IllegalStateException.class))
				.hasMessageContaining("batch listener")
				.hasMessageContaining("BatchHandler");
		});
	}

	@Test
	void fingerprintExpressionThatDoesNotParseFailsStartUp() {
		this.contextRunner.withBean(TypoHandler.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(causeOfType(context.getStartupFailure(), IllegalStateException.class))
				.hasMessageContaining("Fingerprint expression '#payment.)'")
				.hasMessageContaining("does not parse");
		});
	}

	public record Payment(String id, long amount) {
	}

	@Configuration(proxyBeanMethods = false)
	static class JdbcTransactionManagerConfiguration {

		@Bean
		DataSourceTransactionManager transactionManager(DataSource dataSource) {
			return new DataSourceTransactionManager(dataSource);
		}

	}

	/**
	 * Proxied through this interface where a filtered class loader cannot define CGLIB classes; its
	 * annotation is what the start-up check sees on the proxy.
	 */
	public interface Payments {

		@Idempotent(key = "#payment.id", fingerprint = "#payment", onDuplicate = OnDuplicate.RETURN_PREVIOUS)
		String pay(Payment payment);

	}

	static class PaymentHandler implements Payments {

		private int calls;

		@Override
		public String pay(Payment payment) {
			return "paid " + payment.id() + " #" + (++this.calls);
		}

		public int calls() {
			return this.calls;
		}

	}

	/** Proxied through this interface where a filtered class loader cannot define CGLIB classes. */
	public interface Plain {

		@Idempotent(key = "#payment.id")
		void handle(Payment payment);

	}

	static class PlainHandler implements Plain {

		@Override
		public void handle(Payment payment) {
		}

	}

	static class BatchHandler {

		@KafkaListener(topics = "payments", batch = "true")
		@Idempotent(key = "#element.id", fingerprint = "#element")
		public void handle(List<Payment> payments) {
		}

	}

	static class TypoHandler {

		@Idempotent(key = "#payment.id", fingerprint = "#payment.)")
		public void handle(Payment payment) {
		}

	}

	/** A leased store of another kind that records nothing but its keys. */
	static class KeylessStore implements IdempotencyStore {

		@Override
		public ClaimResult claim(IdempotencyKey key, Duration lease, Duration retention) {
			return ClaimResult.claimed("token");
		}

		@Override
		public boolean isTransactional() {
			return false;
		}

		@Override
		public String name() {
			return "keyless";
		}

	}

}
