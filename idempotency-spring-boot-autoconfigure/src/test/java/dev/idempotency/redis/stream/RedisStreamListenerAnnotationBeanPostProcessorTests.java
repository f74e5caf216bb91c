package dev.idempotency.redis.stream;

import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.stream.MapRecord;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Discovery of {@link RedisStreamListener} methods and resolution of their placeholders.
 */
class RedisStreamListenerAnnotationBeanPostProcessorTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withBean(RedisStreamListenerAnnotationBeanPostProcessor.class)
		.withPropertyValues("orders.stream=orders-eu", "orders.group=points", "orders.concurrency=4");

	@Test
	void placeholdersAreResolvedAndTheIdDefaultsToBeanAndMethod() {
		this.contextRunner.withBean("pointsListener", PointsListener.class).run((context) -> {
			assertThat(context.getBean(RedisStreamListenerAnnotationBeanPostProcessor.class).getEndpoints())
				.singleElement()
				.satisfies((endpoint) -> {
					assertThat(endpoint.id()).isEqualTo("pointsListener#onOrder");
					assertThat(endpoint.stream()).isEqualTo("orders-eu");
					assertThat(endpoint.group()).isEqualTo("points");
					assertThat(endpoint.concurrency()).isEqualTo(4);
					assertThat(endpoint.consumer()).isNull();
					assertThat(endpoint.bean()).isSameAs(context.getBean("pointsListener"));
				});
		});
	}

	@Test
	void explicitIdAndConsumerAreKept() {
		this.contextRunner.withBean(NamedListener.class)
			.run((context) -> assertThat(context.getBean(RedisStreamListenerAnnotationBeanPostProcessor.class)
				.getEndpoints()).singleElement().satisfies((endpoint) -> {
					assertThat(endpoint.id()).isEqualTo("audit");
					assertThat(endpoint.consumer()).isEqualTo("worker-a");
					assertThat(endpoint.concurrency()).isNull();
				}));
	}

	@Test
	void methodWithTwoParametersFailsStartUp() {
		this.contextRunner.withBean(TwoParameterListener.class)
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("exactly one parameter"));
	}

	@Test
	void unresolvableStreamFailsStartUp() {
		new ApplicationContextRunner().withBean(RedisStreamListenerAnnotationBeanPostProcessor.class)
			.withBean(EmptyStreamListener.class)
			.run((context) -> assertThat(context).hasFailed().getFailure().rootCause().hasMessageContaining("stream"));
	}

	static class PointsListener {

		@RedisStreamListener(stream = "${orders.stream}", group = "${orders.group}", concurrency = "${orders.concurrency}")
		void onOrder(String payload) {
		}

	}

	static class NamedListener {

		@RedisStreamListener(id = "audit", stream = "audit", group = "audit", consumer = "worker-a")
		void onAudit(MapRecord<String, String, String> record) {
		}

	}

	static class TwoParameterListener {

		@RedisStreamListener(stream = "s", group = "g")
		void on(String payload, String other) {
		}

	}

	static class EmptyStreamListener {

		@RedisStreamListener(stream = "${missing.stream:}", group = "g")
		void on(String payload) {
		}

	}

}
