package dev.idempotency.test;

import dev.idempotency.annotation.Idempotent;
import dev.idempotency.autoconfigure.IdempotencyAutoConfiguration;
import dev.idempotency.autoconfigure.store.IdempotencyStoreAutoConfiguration;
import dev.idempotency.core.IdempotencyStore;
import dev.idempotency.core.IdempotencyStoreException;
import dev.idempotency.metrics.autoconfigure.IdempotencyMetricsAutoConfiguration;
import dev.idempotency.support.InMemoryIdempotencyStore;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.aop.support.AopUtils;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * What the kit's auto-configuration adds to an application context, on the in-memory store: no
 * service needed.
 */
class IdempotencyTestAutoConfigurationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, IdempotencyAutoConfiguration.class,
				IdempotencyStoreAutoConfiguration.class, IdempotencyMetricsAutoConfiguration.class,
				IdempotencyTestAutoConfiguration.class))
		.withPropertyValues("idempotency.store.type=in-memory")
		.withBean(CountingService.class);

	@Test
	void applicationWithoutAMeterRegistryGetsASimpleOneAndTheEngineRecordsIntoIt() {
		this.runner.run((context) -> {
			assertThat(context).hasSingleBean(MeterRegistry.class).hasSingleBean(IdempotencyTester.class);
			IdempotencyTester idempotency = context.getBean(IdempotencyTester.class);
			CountingService service = context.getBean(CountingService.class);
			idempotency.deliverTwice(() -> service.call("k"));
			assertThat(idempotency).processed(1).duplicates(1);
			assertThat(service.calls()).isEqualTo(1);
		});
	}

	@Test
	void applicationsOwnMeterRegistryIsKept() {
		this.runner.withBean("ownRegistry", SimpleMeterRegistry.class, SimpleMeterRegistry::new).run((context) -> {
			assertThat(context).hasSingleBean(MeterRegistry.class);
			assertThat(context.getBeanNamesForType(MeterRegistry.class)).containsExactly("ownRegistry");
		});
	}

	@Test
	void storeBeanIsWrappedAndKeepsItsClass() {
		this.runner.run((context) -> {
			IdempotencyStore store = context.getBean(IdempotencyStore.class);
			assertThat(store).isInstanceOf(InMemoryIdempotencyStore.class);
			assertThat(AopUtils.isAopProxy(store)).isTrue();
			IdempotencyTester idempotency = context.getBean(IdempotencyTester.class);
			idempotency.store().fail();
			assertThatExceptionOfType(IdempotencyStoreException.class).isThrownBy(store::probe);
			assertThat(store.name()).as("describing the store needs no backend").isNotBlank();
			idempotency.store().recover();
			store.probe();
		});
	}

	@Test
	void crashAfterCommitIsDisarmedByAReset() {
		this.runner.run((context) -> {
			IdempotencyTester idempotency = context.getBean(IdempotencyTester.class);
			CountingService service = context.getBean(CountingService.class);
			idempotency.crashAfterCommit();
			idempotency.reset();
			service.call("k");
			assertThat(idempotency).processed(1);
		});
	}

	@Test
	void nothingWhenIdempotencyIsSwitchedOff() {
		this.runner.withPropertyValues("idempotency.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(IdempotencyTester.class));
	}

	static class CountingService {

		private int calls;

		@Idempotent(key = "#key", namespace = "counting")
		public void call(String key) {
			this.calls++;
		}

		// A method, not the field: the test holds the bean's proxy.
		public int calls() {
			return this.calls;
		}

	}

}
