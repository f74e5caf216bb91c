package dev.idempotency.redis.stream;

import org.junit.jupiter.api.Test;

import org.springframework.aot.generate.ClassNameGenerator;
import org.springframework.aot.generate.DefaultGenerationContext;
import org.springframework.aot.generate.InMemoryGeneratedFiles;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.context.aot.ApplicationContextAotGenerator;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.javapoet.ClassName;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A {@code @RedisStreamListener} method is called reflectively ({@link StreamEntryDispatcher}), so
 * Spring AOT must register its invocation for a native image.
 */
class RedisStreamListenerRuntimeHintsTests {

	@Test
	void aotProcessingRegistersTheInvocationOfEveryRedisStreamListenerMethod() {
		GenericApplicationContext context = new GenericApplicationContext();
		context.registerBean("orders", OrderListener.class);
		DefaultGenerationContext generation = new DefaultGenerationContext(
				new ClassNameGenerator(ClassName.get(OrderListener.class)), new InMemoryGeneratedFiles());
		new ApplicationContextAotGenerator().processAheadOfTime(context, generation);
		RuntimeHints hints = generation.getRuntimeHints();
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(OrderListener.class, "onOrder"))
			.as("the listener method").accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(OrderListener.class, "helper"))
			.as("a method without the annotation").rejects(hints);
	}

	static class OrderListener {

		@RedisStreamListener(stream = "orders", group = "points")
		void onOrder(String payload) {
		}

		void helper(String payload) {
		}

	}

}
