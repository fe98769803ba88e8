/** The sections of the account page, in order. */
import type { FunctionComponent } from "preact";
import type { SectionProps } from "./ui.tsx";
import { CallsignsSection } from "./callsigns.tsx";
import { PasskeysSection } from "./passkeys.tsx";
import { ProfileSection } from "./profile.tsx";
import { EmailSection } from "./email.tsx";
import { DeviceKeysSection } from "./keys.tsx";
import { NotificationsSection, SavedViewsSection } from "./notify.tsx";
import { YourDataSection } from "./data.tsx";
import { StationsSection } from "./stations.tsx";

export const ACCOUNT_SECTIONS: Array<FunctionComponent<SectionProps>> = [
  CallsignsSection,
  PasskeysSection,
  EmailSection,
  DeviceKeysSection,
  StationsSection,
  ProfileSection,
  NotificationsSection,
  SavedViewsSection,
  YourDataSection,
];
