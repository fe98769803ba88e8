/**
 * The game's names in the interface's language: cache types and sizes, log
 * kinds, attributes (src/lib/cache-attributes.ts keeps the ids and Groundspeak's
 * English; ui/i18n attr.<id> is the chip's word, attrName.<id> the full name),
 * and waypoint kinds. An unknown value shows as it came.
 */
import { attributeById } from "../../src/lib/cache-attributes.ts";
import { t } from "../i18n/i18n.ts";

export const typeLabel = (type: string) => t(`cacheType.${type}`, { defaultValue: type });
export const sizeLabel = (size: string) => t(`cacheSize.${size}`, { defaultValue: size });
export const logKindLabel = (kind: string) => t(`logKind.${kind}`, { defaultValue: kind });
export const waypointKindLabel = (kind: string) => t(`cacheWaypoint.${kind}`, { defaultValue: kind });

/** An attribute's short word for a chip ("Dogs"). */
export const attrLabel = (id: number) => (attributeById(id) ? t(`attr.${id}`, { defaultValue: attributeById(id)!.label }) : t("attrUi.unknown", { id }));
/** An attribute's full name ("Access or parking fee"). */
export const attrName = (id: number) => (attributeById(id) ? t(`attrName.${id}`, { defaultValue: attributeById(id)!.name }) : attrLabel(id));
