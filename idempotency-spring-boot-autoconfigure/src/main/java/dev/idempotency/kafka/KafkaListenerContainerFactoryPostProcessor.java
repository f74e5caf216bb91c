package dev.idempotency.kafka;

import org.springframework.beans.BeansException;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.kafka.config.AbstractKafkaListenerContainerFactory;
import org.springframework.kafka.listener.CompositeRecordInterceptor;
import org.springframework.kafka.listener.RecordInterceptor;

/**
 * Adds the {@link KafkaDeliveryContextInterceptor} to every listener container factory, keeping the
 * record interceptor the application configured (both run, the application's first).
 *
 * @since 0.1.0
 */
public class KafkaListenerContainerFactoryPostProcessor implements BeanPostProcessor {

	@Override
	@SuppressWarnings({ "unchecked", "rawtypes" })
	public Object postProcessAfterInitialization(Object bean, String beanName) throws BeansException {
		if (bean instanceof AbstractKafkaListenerContainerFactory factory) {
			RecordInterceptor existing = factory.getRecordInterceptor();
			if (existing instanceof KafkaDeliveryContextInterceptor) {
				return bean;
			}
			KafkaDeliveryContextInterceptor delivery = new KafkaDeliveryContextInterceptor();
			factory.setRecordInterceptor((existing != null) ? new CompositeRecordInterceptor(existing, delivery)
					: delivery);
		}
		return bean;
	}

}
