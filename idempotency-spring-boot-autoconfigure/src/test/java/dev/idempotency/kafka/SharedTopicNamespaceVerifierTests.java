package dev.idempotency.kafka;

import dev.idempotency.annotation.Idempotent;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.kafka.annotation.KafkaListener;

import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatNoException;

/**
 * Tests for {@link SharedTopicNamespaceVerifier}: two methods that consume one topic in one group
 * are one consumer and must claim in one namespace.
 */
class SharedTopicNamespaceVerifierTests {

	@Test
	void twoMethodsOnOneTopicInOneGroupWithDefaultNamespacesFailStartUp() {
		assertThatIllegalStateException().isThrownBy(() -> verify(DefaultNamespaces.class))
			.withMessageContaining("consume topic 'orders' in consumer group 'points'")
			.withMessageContaining("points:first")
			.withMessageContaining("points:second");
	}

	@Test
	void twoMethodsOnOneTopicInOneGroupThatNameOneNamespaceStart() {
		assertThatNoException().isThrownBy(() -> verify(OneNamedNamespace.class));
	}

	@Test
	void oneGlobalGroupOnTwoTopicsStarts() {
		assertThatNoException().isThrownBy(() -> verify(GlobalGroupTwoTopics.class));
	}

	@Test
	void oneTopicInTwoGroupsStarts() {
		assertThatNoException().isThrownBy(() -> verify(TwoGroups.class));
	}

	@Test
	void groupTakenFromTheListenerIdWhenItIsTheGroup() {
		assertThatIllegalStateException().isThrownBy(() -> verify(IdsAsOneGroup.class))
			.withMessageContaining("in consumer group 'same'");
	}

	private static void verify(Class<?> listeners) {
		DefaultListableBeanFactory beanFactory = new DefaultListableBeanFactory();
		beanFactory.registerBeanDefinition("listeners", new RootBeanDefinition(listeners));
		beanFactory.registerSingleton("kafkaTransport", new KafkaMessageTransport());
		new SharedTopicNamespaceVerifier(beanFactory).afterSingletonsInstantiated();
	}

	static class DefaultNamespaces {

		@KafkaListener(id = "first", topics = "orders", groupId = "points")
		@Idempotent(key = "#p0")
		void first(String order) {
		}

		@KafkaListener(id = "second", topics = "orders", groupId = "points")
		@Idempotent(key = "#p0")
		void second(String order) {
		}

	}

	static class OneNamedNamespace {

		@KafkaListener(id = "first", topics = "orders", groupId = "points")
		@Idempotent(key = "#p0", namespace = "points")
		void first(String order) {
		}

		@KafkaListener(id = "second", topics = "orders", groupId = "points")
		@Idempotent(key = "#p0", namespace = "points")
		void second(String order) {
		}

	}

	static class GlobalGroupTwoTopics {

		@KafkaListener(id = "credits", idIsGroup = false, topics = "credits", groupId = "shop")
		@Idempotent(key = "#p0")
		void credits(String order) {
		}

		@KafkaListener(id = "debits", idIsGroup = false, topics = "debits", groupId = "shop")
		@Idempotent(key = "#p0")
		void debits(String order) {
		}

	}

	static class TwoGroups {

		@KafkaListener(topics = "orders", groupId = "points")
		@Idempotent(key = "#p0")
		void points(String order) {
		}

		@KafkaListener(topics = "orders", groupId = "shipping")
		@Idempotent(key = "#p0")
		void shipping(String order) {
		}

	}

	static class IdsAsOneGroup {

		@KafkaListener(id = "same", topics = "orders")
		@Idempotent(key = "#p0")
		void first(String order) {
		}

		@KafkaListener(topics = "orders", groupId = "same")
		@Idempotent(key = "#p0")
		void second(String order) {
		}

	}

}
