package dev.idempotency.kafka.share;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import dev.idempotency.support.IdempotentBeanMethods;

import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.config.ShareKafkaListenerContainerFactory;
import org.springframework.kafka.listener.ContainerProperties.ShareAckMode;
import org.springframework.util.StringUtils;

/**
 * Fails start-up when an {@code @Idempotent} {@code @KafkaListener} uses a share container factory
 * in {@code ShareAckMode.IMPLICIT}: the broker accepts those records before the transaction
 * commits, and a rollback would lose them.
 *
 * @since 0.2.0
 */
public final class ImplicitShareAckVerifier implements SmartInitializingSingleton {

	private final ConfigurableListableBeanFactory beanFactory;

	public ImplicitShareAckVerifier(ConfigurableListableBeanFactory beanFactory) {
		this.beanFactory = beanFactory;
	}

	@Override
	public void afterSingletonsInstantiated() {
		List<String> refused = new ArrayList<>();
		for (IdempotentBeanMethods.BeanMethod method : IdempotentBeanMethods.find(this.beanFactory)) {
			Set<KafkaListener> listeners = AnnotatedElementUtils.findMergedRepeatableAnnotations(method.method(),
					KafkaListener.class);
			if (listeners.isEmpty()) {
				listeners = AnnotatedElementUtils.findMergedRepeatableAnnotations(method.userType(),
						KafkaListener.class);
			}
			for (KafkaListener listener : listeners) {
				String factory = this.beanFactory.resolveEmbeddedValue(listener.containerFactory());
				if (StringUtils.hasText(factory) && this.beanFactory.containsBean(factory)
						&& this.beanFactory.getBean(factory) instanceof ShareKafkaListenerContainerFactory<?, ?> share
						&& share.getContainerProperties().getShareAckMode() == ShareAckMode.IMPLICIT) {
					refused.add(method.describe() + " (containerFactory '" + factory + "')");
				}
			}
		}
		if (!refused.isEmpty()) {
			throw new IllegalStateException("@Idempotent share-group listeners need ShareAckMode.EXPLICIT (the"
					+ " default) or MANUAL; in IMPLICIT mode the broker accepts a record whether or not its"
					+ " transaction commits: " + String.join(", ", refused) + ". Set"
					+ " factory.getContainerProperties().setShareAckMode(ShareAckMode.EXPLICIT)");
		}
	}

}
