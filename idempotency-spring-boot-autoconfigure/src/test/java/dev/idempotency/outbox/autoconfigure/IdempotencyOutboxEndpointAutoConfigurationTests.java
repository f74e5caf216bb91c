package dev.idempotency.outbox.autoconfigure;

import dev.idempotency.autoconfigure.actuate.IdempotencyEndpoint;
import dev.idempotency.autoconfigure.actuate.IdempotencyEndpointAutoConfiguration;
import dev.idempotency.autoconfigure.actuate.IdempotencyEndpointSection;
import dev.idempotency.core.IdempotencyStore;
import dev.idempotency.support.InMemoryIdempotencyStore;
import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceInitializationAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link IdempotencyOutboxEndpointAutoConfiguration}: the {@code outbox} section of the
 * {@code idempotency} endpoint under the conditions it had inside the endpoint's auto-configuration
 * (Actuator, the endpoint available, a store), with and without an outbox.
 */
class IdempotencyOutboxEndpointAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(EndpointAutoConfiguration.class,
				IdempotencyEndpointAutoConfiguration.class, IdempotencyOutboxEndpointAutoConfiguration.class))
		.withBean(IdempotencyStore.class, InMemoryIdempotencyStore::new)
		.withPropertyValues("management.endpoints.web.exposure.include=idempotency");

	@Test
	void withoutAnOutboxTheSectionSaysSo() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasSingleBean(OutboxSection.class).hasBean("idempotencyEndpointOutboxSection");
			IdempotencyEndpoint endpoint = context.getBean(IdempotencyEndpoint.class);
			assertThat(endpoint.page("outbox", "dead", null, null).getBody()).isEqualTo(
					new IdempotencyEndpoint.Problem("The outbox is not enabled (idempotency.outbox.enabled)"));
			assertThat(endpoint.overview().outbox()).isNull();
		});
	}

	@Test
	void withTheOutboxTheOverviewShowsItsBacklog() {
		this.contextRunner
			.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
					DataSourceTransactionManagerAutoConfiguration.class,
					DataSourceInitializationAutoConfiguration.class, IdempotencyOutboxAutoConfiguration.class))
			.withPropertyValues("spring.datasource.generate-unique-name=true", "idempotency.outbox.enabled=true",
					"idempotency.outbox.purge.interval=1h", "idempotency.outbox.relay.enabled=false")
			.run((context) -> {
				IdempotencyEndpoint.Overview overview = context.getBean(IdempotencyEndpoint.class).overview();
				assertThat(overview.outbox()).isNotNull();
				assertThat(overview.outbox().pending()).isZero();
			});
	}

	@Test
	void backsOffWhenTheEndpointIsNotExposedOrThereIsNoStoreOrActuator() {
		this.contextRunner.withPropertyValues("management.endpoints.web.exposure.include=health")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(IdempotencyEndpointSection.class));
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(EndpointAutoConfiguration.class,
					IdempotencyOutboxEndpointAutoConfiguration.class))
			.withPropertyValues("management.endpoints.web.exposure.include=idempotency")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(IdempotencyEndpointSection.class));
		this.contextRunner.withClassLoader(new FilteredClassLoader(Endpoint.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(IdempotencyEndpointSection.class));
	}

}
