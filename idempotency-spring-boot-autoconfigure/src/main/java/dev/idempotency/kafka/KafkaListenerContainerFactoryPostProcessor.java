package dev.idempotency.kafka;

import org.springframework.beans.BeansException;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.kafka.config.AbstractKafkaListenerContainerFactory;
import org.springframework.kafka.listener.BatchInterceptor;
import org.springframework.kafka.listener.CompositeBatchInterceptor;
import org.springframework.kafka.listener.CompositeRecordInterceptor;
import org.springframework.kafka.listener.RecordInterceptor;

/**
 * Adds the {@link KafkaDeliveryContextInterceptor} and the {@link KafkaBatchDeliveryContextInterceptor}
 * to every listener container factory, keeping the record and batch interceptors the application
 * configured (both run, the application's first). spring-kafka uses the one that fits each
 * listener.
 *
 * @since 0.1.0
 */
public class KafkaListenerContainerFactoryPostProcessor implements BeanPostProcessor {

	@Override
	@SuppressWarnings({ "unchecked", "rawtypes" })
	public Object postProcessAfterInitialization(Object bean, String beanName) throws BeansException {
		if (bean instanceof AbstractKafkaListenerContainerFactory factory) {
			RecordInterceptor existing = factory.getRecordInterceptor();
			if (!(existing instanceof KafkaDeliveryContextInterceptor)) {
				KafkaDeliveryContextInterceptor delivery = new KafkaDeliveryContextInterceptor();
				factory.setRecordInterceptor((existing != null) ? new CompositeRecordInterceptor(existing, delivery)
						: delivery);
			}
			BatchInterceptor existingBatch = factory.getBatchInterceptor();
			if (!(existingBatch instanceof KafkaBatchDeliveryContextInterceptor)) {
				KafkaBatchDeliveryContextInterceptor batchDelivery = new KafkaBatchDeliveryContextInterceptor();
				factory.setBatchInterceptor((existingBatch != null)
						? new CompositeBatchInterceptor(existingBatch, batchDelivery) : batchDelivery);
			}
		}
		return bean;
	}

}
