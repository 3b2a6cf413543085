import type { _Record, AttributeValue } from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBRecord, AttributeValue as LambdaAttributeValue } from 'aws-lambda';

type Image = Record<string, AttributeValue>;
type LambdaImage = Record<string, LambdaAttributeValue>;

/**
 * A DynamoDB Streams `GetRecords` record as Lambda's event source mapping hands it to a
 * function: the same fields, binary values in base64, the creation time in epoch seconds, and
 * the stream's ARN as `eventSourceARN`.
 *
 * @example
 * const event: DynamoDBStreamEvent = { Records: records.map((r) => toLambdaStreamRecord(r, arn)) };
 */
export function toLambdaStreamRecord(record: _Record, streamArn: string): DynamoDBRecord {
  const d = record.dynamodb ?? {};
  const created = d.ApproximateCreationDateTime;
  return {
    eventID: record.eventID,
    eventName: record.eventName,
    eventVersion: record.eventVersion ?? '1.1',
    eventSource: record.eventSource ?? 'aws:dynamodb',
    eventSourceARN: streamArn,
    awsRegion: record.awsRegion,
    ...(record.userIdentity ? { userIdentity: record.userIdentity } : {}),
    dynamodb: {
      ...(created ? { ApproximateCreationDateTime: Math.floor(created.getTime() / 1000) } : {}),
      ...(d.Keys ? { Keys: toLambdaImage(d.Keys) } : {}),
      ...(d.NewImage ? { NewImage: toLambdaImage(d.NewImage) } : {}),
      ...(d.OldImage ? { OldImage: toLambdaImage(d.OldImage) } : {}),
      SequenceNumber: d.SequenceNumber,
      SizeBytes: d.SizeBytes,
      StreamViewType: d.StreamViewType,
    },
  };
}

function toLambdaImage(image: Image): LambdaImage {
  return Object.fromEntries(Object.entries(image).map(([name, v]) => [name, toLambdaValue(v)]));
}

function toLambdaValue(value: AttributeValue): LambdaAttributeValue {
  if (value.B !== undefined) return { B: base64(value.B) };
  if (value.BS !== undefined) return { BS: value.BS.map(base64) };
  if (value.L !== undefined) return { L: value.L.map(toLambdaValue) };
  if (value.M !== undefined) return { M: toLambdaImage(value.M) };
  // S, N, SS, NS, BOOL and NULL look the same in both.
  return value as LambdaAttributeValue;
}

function base64(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64');
}
