package dev.idempotency.autoconfigure.aot;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import dev.idempotency.annotation.Idempotent;
import dev.idempotency.annotation.OnDuplicate;
import org.junit.jupiter.api.Test;

import org.springframework.aot.generate.ClassNameGenerator;
import org.springframework.aot.generate.DefaultGenerationContext;
import org.springframework.aot.generate.InMemoryGeneratedFiles;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.beans.factory.aot.BeanFactoryInitializationAotContribution;
import org.springframework.beans.factory.aot.BeanFactoryInitializationAotProcessor;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.javapoet.ClassName;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The starter's native-image hints, as {@code META-INF/spring/aot.factories} registers them: every
 * script the jar ships is a registered resource, and the argument and result types of
 * {@code @Idempotent} methods get reflection for SpEL and stored results.
 */
class IdempotencyRuntimeHintsTests {

	private static final SpringFactoriesLoader AOT_FACTORIES = SpringFactoriesLoader
		.forResourceLocation("META-INF/spring/aot.factories");

	@Test
	void everyShippedScriptIsARegisteredResource() throws IOException {
		RuntimeHints hints = new RuntimeHints();
		for (RuntimeHintsRegistrar registrar : AOT_FACTORIES.load(RuntimeHintsRegistrar.class)) {
			registrar.registerHints(hints, getClass().getClassLoader());
		}
		List<String> shipped = new ArrayList<>();
		for (String pattern : new String[] { "sql", "lua", "yaml", "xml" }) {
			for (Resource resource : new PathMatchingResourcePatternResolver()
				.getResources("classpath*:dev/idempotency/**/*." + pattern)) {
				String url = resource.getURL().toString();
				if (url.contains("/target/classes/")) {
					shipped.add(url.substring(url.indexOf("/target/classes/") + "/target/classes/".length()));
				}
			}
		}
		assertThat(shipped).as("scripts in the jar").contains("dev/idempotency/store/jdbc/schema-postgresql.sql",
				"dev/idempotency/outbox/schema-mariadb.sql", "dev/idempotency/store/redis/complete.lua");
		assertThat(shipped).allSatisfy((path) -> assertThat(RuntimeHintsPredicates.resource().forResource(path))
			.as(path)
			.accepts(hints));
	}

	@Test
	void argumentAndResultTypesOfIdempotentMethodsGetReflection() {
		DefaultListableBeanFactory beanFactory = new DefaultListableBeanFactory();
		beanFactory.registerBeanDefinition("payments", new RootBeanDefinition(Payments.class));
		beanFactory.registerBeanDefinition("other", new RootBeanDefinition(NotIdempotent.class));
		BeanFactoryInitializationAotProcessor processor = AOT_FACTORIES
			.load(BeanFactoryInitializationAotProcessor.class)
			.stream()
			.filter(IdempotentMethodsAotProcessor.class::isInstance)
			.findFirst()
			.orElseThrow();
		BeanFactoryInitializationAotContribution contribution = processor.processAheadOfTime(beanFactory);
		assertThat(contribution).isNotNull();
		DefaultGenerationContext context = new DefaultGenerationContext(new ClassNameGenerator(ClassName.get(Payments.class)),
				new InMemoryGeneratedFiles());
		contribution.applyTo(context, null);
		RuntimeHints hints = context.getRuntimeHints();
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(PaymentRequest.class, "getOrderId"))
			.as("the key expression's getter").accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onType(Receipt.class)).as("the stored result").accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onType(Unrelated.class)).as("a method without @Idempotent")
			.rejects(hints);
	}

	@Test
	void aBeanFactoryWithoutIdempotentMethodsContributesNothing() {
		DefaultListableBeanFactory beanFactory = new DefaultListableBeanFactory();
		beanFactory.registerBeanDefinition("other", new RootBeanDefinition(NotIdempotent.class));
		assertThat(new IdempotentMethodsAotProcessor().processAheadOfTime(beanFactory)).isNull();
	}

	static class Payments {

		@Idempotent(key = "#request.orderId", onDuplicate = OnDuplicate.RETURN_PREVIOUS)
		Receipt pay(PaymentRequest request) {
			return new Receipt();
		}

	}

	static class NotIdempotent {

		void handle(Unrelated unrelated) {
		}

	}

	public static class PaymentRequest {

		private String orderId;

		public String getOrderId() {
			return this.orderId;
		}

		public void setOrderId(String orderId) {
			this.orderId = orderId;
		}

	}

	public static class Receipt {

		private long amount;

		public long getAmount() {
			return this.amount;
		}

	}

	public static class Unrelated {

		private String name;

		public String getName() {
			return this.name;
		}

	}

}
