import { useState } from 'react';
import { ApiError } from '../../core/api/client';
import { moderate } from '../../core/profile/actions';
import { type IslandI18n, useIslandT } from '../shared/i18n';

interface Props extends IslandI18n {
  /** Explicit ones first; explicit_score is porn + hentai (0…1), null until the image was scored. */
  photos: { id: number; thumb_filename: string; name: string; profile_id: number; explicit: boolean; explicit_score: number | null }[];
  reports: { id: number; reporter: string; profile: string; profile_id: number; reason: string; details: string | null; message_text: string | null; message_kind: string | null }[];
}

/** Staff queue: approve or reject photos under inspection; mark reports handled. */
export function ModerationQueue(props: Props) {
  const t = useIslandT(props);
  const [photos, setPhotos] = useState(props.photos);
  const [reports, setReports] = useState(props.reports);
  const [error, setError] = useState<string | null>(null);
  const act = async (body: Parameters<typeof moderate>[0], done: () => void) => {
    setError(null);
    try {
      await moderate(body);
      done();
    } catch (err) {
      setError(err instanceof ApiError ? err.message : t('error.try_later'));
    }
  };
  return (
    <div>
      {error && <p className="alert alert-danger" role="alert">{error}</p>}
      <section className="settings-section" aria-labelledby="m-photos">
        <h2 id="m-photos">{t('moderation.photos')}</h2>
        {photos.length === 0 ? <p>{t('moderation.no_photos')}</p> : (
          <ul className="own-photos" role="list">
            {photos.map((photo) => (
              <li key={photo.id} data-moderation-photo={photo.id} data-explicit={photo.explicit || undefined}>
                <img src={`/uploads/${photo.thumb_filename}`} alt={photo.name} width="160" height="160" />
                <a href={`/members/${photo.profile_id}`}>{photo.name}</a>
                <span className={photo.explicit ? 'badge badge-danger' : 'field-hint'} data-explicit-score>
                  {photo.explicit_score === null ? t('moderation.not_scored')
                    : t(photo.explicit ? 'moderation.explicit_score' : 'moderation.image_score', { percent: Math.round(photo.explicit_score * 100) })}
                </span>
                <button type="button" className="btn btn-primary" onClick={() => act({ photo_id: photo.id, decision: 'approve' }, () => setPhotos(photos.filter((p) => p.id !== photo.id)))}>{t('moderation.approve')}</button>
                <button type="button" className="btn btn-outline" onClick={() => act({ photo_id: photo.id, decision: 'reject' }, () => setPhotos(photos.filter((p) => p.id !== photo.id)))}>{t('moderation.reject')}</button>
              </li>
            ))}
          </ul>
        )}
      </section>
      <section className="settings-section" aria-labelledby="m-reports">
        <h2 id="m-reports">{t('moderation.reports')}</h2>
        {reports.length === 0 ? <p>{t('moderation.no_reports')}</p> : (
          <ul className="report-list" role="list">
            {reports.map((report) => (
              <li key={report.id}>
                <p>{t('moderation.report_line', { reporter: report.reporter, profile: report.profile, reason: t(`report_reason.${report.reason}`) })}</p>
                {report.details && <blockquote>{report.details}</blockquote>}
                {report.message_kind && (
                  <p>{t('moderation.reported_message')} <q>{report.message_kind === 'text' ? report.message_text : t(`moderation.message_kind_${report.message_kind}`)}</q></p>
                )}
                <a href={`/members/${report.profile_id}`}>{report.profile}</a>{' '}
                <button type="button" className="link-button" onClick={() => act({ report_id: report.id, decision: 'resolve' }, () => setReports(reports.filter((r) => r.id !== report.id)))}>{t('moderation.resolve')}</button>
              </li>
            ))}
          </ul>
        )}
      </section>
    </div>
  );
}
