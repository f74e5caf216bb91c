package dev.idempotency.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Properties;

import dev.idempotency.annotation.Idempotent;
import dev.idempotency.autoconfigure.store.IdempotencyStoreAutoConfiguration;
import dev.idempotency.store.jdbc.autoconfigure.IdempotencyJdbcStoreAutoConfiguration;
import dev.idempotency.store.redis.autoconfigure.IdempotencyRedisStoreAutoConfiguration;
import dev.idempotency.support.NoIdempotencyStoreException;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.BeanCreationException;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.util.StringUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link NoIdempotencyStoreFailureAnalyzer}.
 */
class NoIdempotencyStoreFailureAnalyzerTests {

	private final NoIdempotencyStoreFailureAnalyzer analyzer = new NoIdempotencyStoreFailureAnalyzer();

	@Test
	void descriptionNamesTheMethodsWithoutAStore() {
		FailureAnalysis analysis = this.analyzer
			.analyze(new NoIdempotencyStoreException(List.of("OrderListener#onOrder", "PaymentListener#onPayment"), 0));
		assertThat(analysis.getDescription()).contains("none is configured")
			.contains("OrderListener#onOrder")
			.contains("PaymentListener#onPayment");
	}

	@Test
	void actionListsEveryWayToConfigureAStore() {
		FailureAnalysis analysis = this.analyzer
			.analyze(new NoIdempotencyStoreException(List.of("OrderListener#onOrder"), 0));
		assertThat(analysis.getAction()).contains("DataSource")
			.contains("spring-boot-starter-jdbc")
			.contains("idempotency.store.type=in-memory")
			.contains("idempotency.store.type=redis")
			.contains("your own IdempotencyStore bean")
			.contains("idempotency.enabled=false");
	}

	@Test
	void descriptionOfAnAmbiguousStoreCountsTheCandidatesAndMentionsPrimary() {
		FailureAnalysis analysis = this.analyzer
			.analyze(new NoIdempotencyStoreException(List.of("OrderListener#onOrder"), 2));
		assertThat(analysis.getDescription()).contains("2 store beans")
			.contains("@Primary")
			.contains("OrderListener#onOrder");
	}

	@Test
	void actionForAnAmbiguousStoreSuggestsPrimaryOrANamedStore() {
		FailureAnalysis analysis = this.analyzer
			.analyze(new NoIdempotencyStoreException(List.of("OrderListener#onOrder"), 2));
		assertThat(analysis.getAction()).contains("@Primary").contains("@Idempotent(store = ");
		assertThat(analysis.getAction()).doesNotContain("in-memory");
	}

	@Test
	void descriptionWithoutKnownMethodsStillReads() {
		FailureAnalysis analysis = this.analyzer.analyze(new NoIdempotencyStoreException(List.of(), 0));
		assertThat(analysis.getDescription())
			.isEqualTo("@Idempotent methods need an IdempotencyStore, but none is configured.");
	}

	@Test
	void exceptionIsFoundBehindAWrappingException() {
		NoIdempotencyStoreException cause = new NoIdempotencyStoreException(List.of("OrderListener#onOrder"), 0);
		FailureAnalysis analysis = this.analyzer.analyze(new BeanCreationException("orderListener", "failed", cause));
		assertThat(analysis).isNotNull();
		assertThat(analysis.getCause()).isSameAs(cause);
		assertThat(analysis.getDescription()).contains("OrderListener#onOrder");
	}

	@Test
	void otherFailuresAreNotAnalyzed() {
		assertThat(this.analyzer.analyze(new IllegalStateException("something else"))).isNull();
	}

	@Test
	void startUpFailureOfAnIdempotentMethodWithoutStoreIsAnalyzed() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(IdempotencyStoreAutoConfiguration.class,
					IdempotencyJdbcStoreAutoConfiguration.class, IdempotencyRedisStoreAutoConfiguration.class,
					IdempotencyAutoConfiguration.class))
			.withBean(OrderListener.class)
			.run((context) -> {
				assertThat(context).hasFailed();
				FailureAnalysis analysis = this.analyzer.analyze(context.getStartupFailure());
				assertThat(analysis).isNotNull();
				assertThat(analysis.getDescription()).contains("OrderListener#onOrder");
			});
	}

	@Test
	void analyzerIsRegisteredInSpringFactories() throws IOException {
		List<String> analyzers = new ArrayList<>();
		for (URL url : Collections.list(getClass().getClassLoader().getResources("META-INF/spring.factories"))) {
			Properties factories = new Properties();
			try (InputStream in = url.openStream()) {
				factories.load(in);
			}
			analyzers.addAll(StringUtils
				.commaDelimitedListToSet(factories.getProperty(FailureAnalyzer.class.getName(), ""))
				.stream()
				.map(String::trim)
				.toList());
		}
		assertThat(analyzers).contains(NoIdempotencyStoreFailureAnalyzer.class.getName());
	}

	static class OrderListener {

		@Idempotent(key = "#p0")
		void onOrder(String orderId) {
		}

	}

}
